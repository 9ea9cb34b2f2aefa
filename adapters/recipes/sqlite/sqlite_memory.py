"""Recipe: a memory-tool backend that keeps its memories in SQLite (the standard library's sqlite3).

One table, ``entries(path PRIMARY KEY, kind, data)``: a row per folder and per file, keyed by the
canonical memory path. The commands, the path grammar and every message come from
``../kv_memory.py``; this file only maps its four storage methods onto SQL. Each write is one
transaction, so a rename or a recursive delete is all or nothing.

The database lives outside the memories folder: ``$MEMORY_SQLITE_PATH`` if set, else
``<temp dir>/memspec-sqlite-memory-<worker>.db``. ``{worker}`` in the variable becomes memspec's
``MEMSPEC_WORKER``, so ``memspec check -j 4`` gives each worker its own database.

    memspec check --not-on-folder --python adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import tempfile
from typing import Dict, Iterable, Iterator, Optional

# kv_memory.py sits one folder up; copy both files when you take this recipe.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kv_memory import Entries, Entry, KVMemoryTool  # noqa: E402


def database_path() -> str:
    """Where the database goes: never inside the memories folder memspec hands out."""
    worker = os.environ.get("MEMSPEC_WORKER", "0")
    configured = os.environ.get("MEMORY_SQLITE_PATH")
    if configured:
        return configured.replace("{worker}", worker)
    return os.path.join(tempfile.gettempdir(), f"memspec-sqlite-memory-{worker}.db")


class SqliteEntries(Entries):
    """The engine's entries as rows of one SQLite table."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)  # transactions are explicit below
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS entries (path TEXT PRIMARY KEY, kind TEXT NOT NULL, data BLOB NOT NULL)"
        )

    @staticmethod
    def _key(path: str) -> bytes:
        # Paths may hold lone surrogates (Claude's input is JSON), which sqlite3 cannot bind as
        # TEXT: keys are stored as their UTF-8 bytes, which also sort the way the engine wants.
        return path.encode("utf-8", "surrogatepass")

    def get(self, path: str) -> Optional[Entry]:
        """The row at ``path``."""
        row = self.db.execute("SELECT kind, data FROM entries WHERE path = ?", (self._key(path),)).fetchone()
        return None if row is None else (row[0], bytes(row[1]))

    def below(self, path: str) -> Dict[str, Entry]:
        """Every row under ``path/``: a range scan on the primary key (`/` + 1 is `0`)."""
        low, high = self._key(path + "/"), self._key(path + "0")
        rows = self.db.execute(
            "SELECT path, kind, data FROM entries WHERE path >= ? AND path < ?", (low, high)
        ).fetchall()
        return {bytes(p).decode("utf-8", "surrogatepass"): (k, bytes(d)) for p, k, d in rows}

    @contextlib.contextmanager
    def command(self) -> Iterator[None]:
        """The whole command in one write transaction (`BEGIN IMMEDIATE` takes the database's
        write lock at once, so its reads see no other writer in between); rolled back when the
        command refuses or fails."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def apply(self, put: Dict[str, Entry], remove: Iterable[str]) -> None:
        """One transaction: the removals, then the writes (inside the command's own, when there
        is one)."""
        if self.db.in_transaction:
            self._write(put, remove)
            return
        with self.db:  # BEGIN … COMMIT, or ROLLBACK on an exception
            self.db.execute("BEGIN IMMEDIATE")
            self._write(put, remove)

    def _write(self, put: Dict[str, Entry], remove: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM entries WHERE path = ?", [(self._key(p),) for p in remove])
        self.db.executemany(
            "INSERT OR REPLACE INTO entries (path, kind, data) VALUES (?, ?, ?)",
            [(self._key(p), kind, data) for p, (kind, data) in put.items()],
        )

    def clear(self) -> None:
        """Empty the table (memspec's `reset`)."""
        self.db.execute("DELETE FROM entries")


class SqliteMemoryTool(KVMemoryTool):
    """The memory tool over SQLite. memspec builds it with no argument and calls
    ``clear_all_memory()`` between cases."""

    def __init__(self, path: Optional[str] = None) -> None:
        super().__init__(SqliteEntries(path or database_path()))
