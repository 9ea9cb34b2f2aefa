#!/usr/bin/env python3
"""Broken: a folder cannot be renamed; the rename is refused and nothing moves.

How a real store gets it: rename written as "copy the key, delete the key", which finds no key
for a folder (a folder is only a prefix of other keys) and answers that the path is not a file.
One fault, `rename.directory`: what a case then sees at the folder's old and new paths follows
from the refused rename.

Shortest: create /memories/d/a.txt; rename /memories/d /memories/e → refused; the reference
moves the folder. One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, KVMemory, Path, main  # noqa: E402


class NoFolderRename(KVMemory):
    def do_rename(self, f):
        old = f.string("old_path")
        if isinstance(old, str):
            path = Path(old)
            if not path.is_root() and self.locate(path) == "dir":
                raise Fail(f"Error: {old} is not a file; only files can be renamed.")
        return super().do_rename(f)


if __name__ == "__main__":
    sys.exit(main(NoFolderRename, "no_folder_rename"))
