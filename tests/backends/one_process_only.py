"""Correct, but one process at a time: like a backend on an embedded database that locks its
file (LMDB, RocksDB, SQLite in exclusive mode), a second process started on the same store exits
at once with "database is locked". Alone it is the reference (`memspec serve`). The races that
`check` runs by default need two processes: they are skipped, saying why, and the backend is not
said to have broken."""

import fcntl
import os
import sys

import _proxy

# The lock is taken on the folder above the memories (the reference it wraps locks the memories
# folder itself for its writes): nothing is written beside or inside it.
lock = os.open(os.path.dirname(os.path.abspath(_proxy.memories_dir())), os.O_RDONLY)
try:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    sys.stderr.write("error: database is locked by another process\n")
    sys.exit(1)

_proxy.serve(lambda reference, tool_input: None)
