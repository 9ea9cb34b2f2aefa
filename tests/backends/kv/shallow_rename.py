#!/usr/bin/env python3
"""Broken: renaming a folder moves only its direct children; deeper keys stay under the old name.

How a real store gets it: a "folder rename" that lists the folder with a delimiter (S3
`ListObjectsV2(Prefix=..., Delimiter="/")`, one level of a tree API, Redis `SCAN` on
`prefix/*` then filtering out keys with another `/`) and copies what it got, forgetting to
recurse into the common prefixes.

Shortest: create /memories/d/s/y.txt; rename /memories/d /memories/e;
view /memories/e/s/y.txt (does not exist; the reference shows it). One client; needs a file
two levels below the renamed folder.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class ShallowRename(KVMemory):
    def rename_tree(self, old, new):
        ko, kn = self.key(old), self.key(new)
        items = []
        for k, v in self.subtree(old):
            rest = k[len(ko):]  # "", "/", "/x.txt", "/s/", "/s/y.txt", ...
            if rest.rstrip("/").count("/") <= 1:  # the folder itself and its direct children
                items.append((k, v))
        for k, _ in items:
            self.store.remove(k)
        for k, v in items:
            self.store.put(kn + k[len(ko):], v)


if __name__ == "__main__":
    sys.exit(main(ShallowRename, "shallow_rename"))
