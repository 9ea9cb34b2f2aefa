#!/usr/bin/env python3
"""Broken: rename onto an existing file replaces it (no destination check).

How a real store gets it: Redis `RENAME` (not `RENAMENX`) overwrites its destination, S3 has
no rename and `CopyObject` + `DeleteObject` overwrite, SQL `REPLACE INTO`/`INSERT OR REPLACE`
or POSIX rename(2) under the store. The memory tool's rename never overwrites.

Shortest: create /memories/a.txt "A"; create /memories/b.txt "B";
rename /memories/a.txt /memories/b.txt (succeeds; the reference: the destination exists);
view /memories/b.txt ("A"). One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class RenameClobbers(KVMemory):
    def destination_taken(self, new):
        return self.kind_of(new.comps) == "dir"  # a file in the way is not looked for

    def rename_tree(self, old, new):
        self.store.remove(self.key(new))  # RENAME replaces the destination key
        super().rename_tree(old, new)


if __name__ == "__main__":
    sys.exit(main(RenameClobbers, "rename_clobbers"))
