"""Hostile: as it starts, before reading anything, it builds a folder tree 15,000 levels deep in
its memories folder (memories/deep/d/d/.../d, a path of 30,000 bytes, far beyond PATH_MAX, made
one level at a time relative to an open folder; a few seconds of start-up), then serves
correctly through the reference. A harness that walks or removes the tree recursively on its own
stack overflows it; one that removes it by path runs into ENAMETOOLONG.

With MEMSPEC_TEST_KEEP_ALIVE=1 it answers `reset`, so one process serves every case and the
harness must clear the tree when it restores the sandbox between cases; otherwise it refuses
the controls and every case has a fresh process (and tree), removed with its sandbox."""

import os

import _hostile

DEPTH = 15000


def build():
    top = os.path.join(_hostile.MEMORIES, "deep")
    os.mkdir(top)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(DEPTH):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


build()
_hostile.serve(keep_alive=os.environ.get("MEMSPEC_TEST_KEEP_ALIVE") == "1")
