#!/usr/bin/env python3
"""Broken by a crash: the SQLite store runs in autocommit, and a write replaces a row by
deleting the old one and inserting the new one as two statements, each its own transaction
(what `INSERT OR REPLACE` spelled by hand, or an ORM's delete-then-add, does without an explicit
transaction).

Every answer is right while the process lives. Killed between the two statements, the memory is
gone: its old row deleted and its new one never written.

Shortest: create /memories/notes.md; str_replace in it, killed on entry to the write of the
insert; start again: /memories/notes.md does not exist.

    python3 tests/backends/kv/crash_delete_insert.py {memories}     (run with --not-on-folder)
"""

import contextlib
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _kv  # noqa: E402


class Autocommit(_kv.SqliteStore):
    """The shared SQLite store with no transaction around a command."""

    @contextlib.contextmanager
    def txn(self):
        yield

    def put(self, k, v):
        self.db.execute("DELETE FROM kv WHERE k = ?", (k,))
        self.db.execute("INSERT INTO kv (k, v) VALUES (?, ?)", (k, bytes(v)))

    def wipe(self):
        self.db.execute("DELETE FROM kv")


_kv.SqliteStore = Autocommit

if __name__ == "__main__":
    sys.exit(_kv.main(_kv.KVMemory, "crash_delete_insert", ["--shared", *sys.argv[1:]]))
