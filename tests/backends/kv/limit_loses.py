#!/usr/bin/env python3
"""A limit refused, and the memory lost on the way: a rename that drops the old row first.

How a real store gets it: paths are rows of a table whose key column is `VARCHAR(255)`, and a
rename is written as "delete the old row, insert the new one" without a transaction around
both. Renaming a memory onto a path over 255 characters deletes the memory, then the insert
fails on the column's length and the backend answers `Error: A path is at most 255
characters.`, is_error true. The refusal alone would be a choice (`decide.limits`); but a
refused call must leave the store as it was, and this one lost the memory it was to move.

Shortest: create /memories/keep.txt; rename it onto /memories/<250 characters>.txt → the
refusal; view /memories/keep.txt → does not exist. The reference renames it.
One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, Path, main  # noqa: E402
from path_limit import LIMIT, PathLimit  # noqa: E402


class LimitLoses(PathLimit):
    def do_rename(self, f):
        new_s = f.string("new_path")
        if isinstance(new_s, str) and len(new_s) > LIMIT:
            old = Path(f.string("old_path"))
            # The delete commits on its own; the insert that follows is what the limit refuses.
            with self.store.txn():
                if not old.is_root() and self.locate(old) != "missing":
                    self.delete_tree(old.comps)
        return super().do_rename(f)


if __name__ == "__main__":
    sys.exit(main(LimitLoses, "limit_loses"))
