#!/usr/bin/env python3
"""Broken: view looks a file up with SQL `LIKE`, so `_` and `%` in a path are wildcards.

How a real store gets it: `SELECT v FROM kv WHERE k LIKE ?` with the path bound unescaped
(`LIKE` is often used so that one query also serves prefix listings). `_` matches any one
character and `%` any run, so a view of a path that does not exist answers another file.
(Case-sensitive here, as with `PRAGMA case_sensitive_like`, so that the bug is only this.)

Shortest: create /memories/axb.txt "x"; view /memories/a_b.txt (shows axb's content; the
reference: does not exist). Also view /memories/%.txt. One client; needs a path with `_` or
`%` that does not exist while a path it matches does.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import re  # noqa: E402

from _kv import KVMemory, main  # noqa: E402


def like(pattern):
    out = []
    for c in pattern:
        out.append("." if c == "_" else ".*" if c == "%" else re.escape(c))
    return re.compile("".join(out), re.S)


class LikeView(KVMemory):
    def view_lookup(self, path):
        if path.comps and not path.trailing and self.walk_parents(path.comps) is None:
            rx = like(self.key(path.comps))
            for k, v in self.store.scan("/memories/"):
                if not k.endswith("/") and rx.fullmatch(k):
                    return "file", v  # the first row LIKE returned
        return super().view_lookup(path)


if __name__ == "__main__":
    sys.exit(main(LikeView, "like_view"))
