#!/usr/bin/env python3
"""Broken by a crash: rename copies the file (or the folder, file by file) to its new path and
then deletes the old one, as code written for stores that have no rename does (object stores,
a port from one), instead of one rename(2). Writes are atomic (temp file, then rename), so only
a rename can be torn.

Killed after the copy and before the delete, both paths hold the memory (Claude sees a file it
renamed away come back); killed mid-way through a folder, some files are at both paths and some
at one.

Shortest: create /memories/notes.md; rename it to /memories/archive.md; kill the process on
entry to its unlink; start it again: both /memories/notes.md and /memories/archive.md exist.

    python3 tests/backends/crash/rename_by_copy.py {memories}
"""

import os
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "independent"))

import memory  # noqa: E402


def rename(self, old, new, cmd):
    _, src = self.locate(old, follow=False)
    parent = self.parent_dir(new)
    dst = os.path.join(parent, new[-1])
    if os.path.lexists(dst):
        raise memory.Fail(f"Error: The destination {memory.canon(new)} already exists")
    if os.path.isdir(src):
        shutil.copytree(src, dst, symlinks=True)
        shutil.rmtree(src)
    else:
        shutil.copy2(src, dst, follow_symlinks=False)
        os.unlink(src)


memory.Folder.rename = rename

if __name__ == "__main__":
    sys.exit(memory.main(["--mode", "folder", *sys.argv[1:]]))
