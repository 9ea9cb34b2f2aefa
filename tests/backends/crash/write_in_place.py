#!/usr/bin/env python3
"""Broken by a crash: every write opens the memory's own file with O_TRUNC and writes the new
text into it, 64 KiB at a time (as `open(path, "w").write(text)` and most runtimes' buffered
writers do), instead of writing a temp file and renaming it into place.

In one process every answer is right, and a clean stop loses nothing. Killed between the open
and the last write (a deploy, an out-of-memory kill, a worker timeout), the file is left empty
or cut: the memory is gone, and so is the text it held before the command.

Shortest: create /memories/notes.md (256 KiB); str_replace in it; kill the process on entry to
its first write; start it again: /memories/notes.md is empty.

    python3 tests/backends/crash/write_in_place.py {memories}
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "independent"))

import memory  # noqa: E402

CHUNK = 64 * 1024


def in_place(path, data, flags):
    fd = os.open(path, os.O_WRONLY | flags | os.O_NOFOLLOW, 0o600)
    try:
        for start in range(0, len(data), CHUNK):
            os.write(fd, data[start:start + CHUNK])
    finally:
        os.close(fd)


def write(self, segs, data):
    _, path = self.locate(segs)
    in_place(path, data, os.O_TRUNC)


def create(self, segs, data, cmd):
    parent = self.parent_dir(segs, make=True, shown_path=memory.canon(segs))
    in_place(os.path.join(parent, segs[-1]), data, os.O_CREAT | os.O_EXCL)


memory.Folder.write = write
memory.Folder.create = create

if __name__ == "__main__":
    sys.exit(memory.main(["--mode", "folder", *sys.argv[1:]]))
