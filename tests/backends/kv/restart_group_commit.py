#!/usr/bin/env python3
"""Broken across restarts: a write is committed only when the next write arrives, so the last
write before the process stops is lost.

How a real store gets it: group commit done by hand. To save a transaction (and an fsync) per
call, the store keeps one transaction open and commits the previous command's changes when the
next command that writes begins; reads happen inside the open transaction and see everything.
In one process every answer is right. When the process stops (a deploy, a worker recycled, the
end of a conversation), the open transaction is rolled back and the last acknowledged write is
gone. Only `--shared` keeps a store between processes (the dict starts empty every time).

Shortest: create /memories/a.md; create /memories/b.md; stop the backend; start it again on the
same store; view /memories/b.md (does not exist; the reference shows it). /memories/a.md is
kept: the second create committed it.
"""

import contextlib
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, SqliteStore, main  # noqa: E402


class GroupCommit(KVMemory):
    def __init__(self, store, revision="ga-2026"):
        super().__init__(store, revision)
        if isinstance(store, SqliteStore):
            self.store = Pending(store)


class Pending:
    """The SQLite store with one transaction left open across commands."""

    def __init__(self, inner):
        self.inner = inner
        self.db = inner.db
        self.name = inner.name
        self.open = False  # a transaction is open
        self.written = False  # it holds an earlier command's writes
        self.writing = False  # the current command wrote
        self.depth = 0

    @contextlib.contextmanager
    def txn(self):
        outer = self.depth == 0
        if not self.open:
            self.db.execute("BEGIN IMMEDIATE")
            self.open = True
        if outer:
            self.writing = False
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if outer:
                # The command's writes wait for the next write to be committed.
                self.written = self.written or self.writing

    def before_write(self):
        if self.written and not self.writing:
            self.db.execute("COMMIT")
            self.db.execute("BEGIN IMMEDIATE")
            self.written = False
        self.writing = True

    def get(self, k):
        return self.inner.get(k)

    def put(self, k, v):
        self.before_write()
        self.inner.put(k, v)

    def remove(self, k):
        self.before_write()
        self.inner.remove(k)

    def scan(self, prefix):
        return self.inner.scan(prefix)

    def wipe(self):
        with self.txn():
            self.before_write()
            self.db.execute("DELETE FROM kv")
        # memspec's reset between cases is not a write of the tool: it is committed at once.
        self.db.execute("COMMIT")
        self.open = self.written = self.writing = False


if __name__ == "__main__":
    sys.exit(main(GroupCommit, "restart_group_commit"))
