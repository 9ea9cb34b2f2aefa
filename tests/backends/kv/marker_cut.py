#!/usr/bin/env python3
"""Broken: a long text is stored cut, with a marker in place of its end, and acknowledged.

How a real store gets it: a backend that "protects" its context window by keeping the first
15,000 characters of what it is given and writing a truncation marker after them, at write time
rather than at view time; or a value column of fixed size with a note appended. Every write of
a text longer than 15,000 characters (create, str_replace, insert) keeps its first 15,000 and
`\n[... content truncated ...]\n`, and answers success. A view budget that only shows the start
would have the same views; only the stored bytes tell them apart.

Shortest: create /memories/big.txt with 20,000 characters of numbered lines; view it with
view_range to its end: the last lines are missing, a marker is there. Its fixed twin refuses
what it cannot keep: a store that answers `Error: ... too large` for such a write.
One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402

KEPT = 15_000
MARKER = "\n[... content truncated ...]\n"


class MarkerCut(KVMemory):
    def put(self, key, value):
        text = value.decode("utf-8", "surrogateescape")
        if len(text) > KEPT:
            value = (text[:KEPT] + MARKER).encode("utf-8", "surrogateescape")
        super().put(key, value)


if __name__ == "__main__":
    sys.exit(main(MarkerCut, "marker_cut"))
