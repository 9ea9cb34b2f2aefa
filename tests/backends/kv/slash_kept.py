#!/usr/bin/env python3
"""Broken: a rename whose destination ends with a slash keeps the slash in the moved keys.

How a real store gets it: the destination is joined onto the moved keys as Claude spelled it
(`new_path + rest`), and `/memories/e/` + `/a.txt` makes the key `/memories/e//a.txt`. The
rename is acknowledged; afterwards `/memories/e/a.txt` does not exist while a listing shows the
doubled slash: an acknowledged memory that can no longer be read (memories lost).

Shortest: create /memories/sub/a.txt; rename /memories/sub → /memories/e/;
view /memories/e/a.txt (does not exist; the reference shows it). One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class SlashKept(KVMemory):
    slashed = False

    def do_rename(self, f):
        new_path = f.string("new_path")
        self.slashed = isinstance(new_path, str) and new_path.endswith("/")
        try:
            return super().do_rename(f)
        finally:
            self.slashed = False

    def rename_tree(self, old, new):
        ko, kn = self.key(old), self.key(new)
        if self.slashed:
            kn += "/"
        items = self.subtree(old)
        for k, _ in items:
            self.store.remove(k)
        for k, v in items:
            self.store.put(kn + k[len(ko):], v)


if __name__ == "__main__":
    sys.exit(main(SlashKept, "slash_kept"))
