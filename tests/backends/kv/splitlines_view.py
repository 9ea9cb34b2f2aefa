#!/usr/bin/env python3
"""Broken: view splits a file's lines with Python's `str.splitlines()`.

How a real store gets it: `text.splitlines()` to number the lines, which also breaks at `\\v`,
`\\f`, `\\x1c`-`\\x1e`, `\\x85`, U+2028 and U+2029. The store keeps every byte create wrote;
only the view shows more lines than the file has. The fault is the reader's (`view.*`), not
the writer's.

Shortest: create /memories/seps.txt "a\\x0bb\\n"; view it → two numbered lines, `a` and `b`
(the reference: one line, `a\\x0bb`). One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _kv  # noqa: E402
from _kv import KVMemory, main  # noqa: E402


def split_lines(b):
    return [line.encode("utf-8", "surrogatepass") for line in b.decode("utf-8", "surrogatepass").splitlines()]


def line_count(b):
    return len(split_lines(b))


class SplitlinesView(KVMemory):
    def view_file(self, path, data, rng):
        # The module's splitter and count serve the view only: edits keep the right count.
        saved = _kv.split_lines, _kv.line_count
        _kv.split_lines, _kv.line_count = split_lines, line_count
        try:
            return super().view_file(path, data, rng)
        finally:
            _kv.split_lines, _kv.line_count = saved


if __name__ == "__main__":
    sys.exit(main(SplitlinesView, "splitlines_view"))
