#!/usr/bin/env python3
"""Broken: delete of `/memories/a` removes every key that starts with `/memories/a`.

How a real store gets it: "delete the subtree" written as a prefix scan without the separator
(Redis `SCAN MATCH /memories/a*`, S3 `ListObjectsV2(Prefix="/memories/a")`, SQL
`WHERE k LIKE '/memories/a%'` or `k >= '/memories/a'`), so `/memories/ab.txt` and
`/memories/a-old/` go with `/memories/a`.

Shortest: create /memories/a; create /memories/ab.txt; delete /memories/a;
view /memories/ab.txt (does not exist; the reference shows it). One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class PrefixDelete(KVMemory):
    def delete_tree(self, comps):
        for k, _ in self.store.scan(self.key(comps)):  # no "/" after the prefix
            self.store.remove(k)


if __name__ == "__main__":
    sys.exit(main(PrefixDelete, "prefix_delete"))
