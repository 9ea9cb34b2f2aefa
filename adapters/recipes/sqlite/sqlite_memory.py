"""Recipe: a memory-tool backend that keeps its memories in SQLite (the standard library's sqlite3).

One table, ``memories(user_id, path, kind, data)``, keyed by ``(user_id, path)``: a row per folder
and per file of each user, keyed by the canonical memory path. Every query names the user with
``user_id = ?`` (never ``LIKE``, which reads ``_`` and ``%`` in an id as wildcards and ignores
case), so one database serves many users with nothing crossing; a store of one user has the id
``''``. The commands, the path grammar and every message come from
``../kv_memory.py``; this file only maps its four storage methods onto SQL. Each write is one
transaction, so a rename or a recursive delete is all or nothing.

The database lives outside the memories folder: ``$MEMORY_SQLITE_PATH`` if set; else, run by
memspec, ``memories.db`` in the backend's own folder ``$MEMSPEC_STATE`` (``{state}``: one per
sandbox, new with each, never watched for escapes); else
``<temp dir>/memspec-sqlite-memory-<worker>.db``. ``{worker}`` in the variable becomes memspec's
``MEMSPEC_WORKER``, so ``memspec check -j 4`` gives each worker its own database.

    memspec check --not-on-folder --python adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool

Many users on one database (``SqliteMemoryTool(user=...)``; ``memspec check --per-user`` passes
each user's id, and ``reset`` then empties that user's rows only):

    memspec check --not-on-folder --per-user --area users \\
        --python adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool
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
    state = os.environ.get("MEMSPEC_STATE")
    if state:
        return os.path.join(state, "memories.db")
    return os.path.join(tempfile.gettempdir(), f"memspec-sqlite-memory-{worker}.db")


class SqliteEntries(Entries):
    """The engine's entries as rows of one SQLite table."""

    def __init__(self, path: str, user: str = "") -> None:
        self.db = sqlite3.connect(path, isolation_level=None, timeout=60)  # transactions are explicit below
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS memories (user_id BLOB NOT NULL, path BLOB NOT NULL, kind TEXT NOT NULL, "
            "data BLOB NOT NULL, PRIMARY KEY (user_id, path))"
        )
        # As bytes, like the paths: an id compares byte for byte, whatever its case or form.
        self.user = user.encode("utf-8", "surrogatepass")

    @staticmethod
    def _key(path: str) -> bytes:
        # Paths may hold lone surrogates (Claude's input is JSON), which sqlite3 cannot bind as
        # TEXT: keys are stored as their UTF-8 bytes, which also sort the way the engine wants.
        return path.encode("utf-8", "surrogatepass")

    def get(self, path: str) -> Optional[Entry]:
        """The row at ``path``."""
        row = self.db.execute(
            "SELECT kind, data FROM memories WHERE user_id = ? AND path = ?", (self.user, self._key(path))
        ).fetchone()
        return None if row is None else (row[0], bytes(row[1]))

    def below(self, path: str) -> Dict[str, Entry]:
        """Every row under ``path/``: a range scan on the primary key (`/` + 1 is `0`)."""
        low, high = self._key(path + "/"), self._key(path + "0")
        rows = self.db.execute(
            "SELECT path, kind, data FROM memories WHERE user_id = ? AND path >= ? AND path < ?", (self.user, low, high)
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
        self.db.executemany(
            "DELETE FROM memories WHERE user_id = ? AND path = ?", [(self.user, self._key(p)) for p in remove]
        )
        self.db.executemany(
            "INSERT OR REPLACE INTO memories (user_id, path, kind, data) VALUES (?, ?, ?, ?)",
            [(self.user, self._key(p), kind, data) for p, (kind, data) in put.items()],
        )

    def clear(self) -> None:
        """Forget this user's memories (memspec's `reset`), and no one else's."""
        self.db.execute("DELETE FROM memories WHERE user_id = ?", (self.user,))


class SqliteMemoryTool(KVMemoryTool):
    """The memory tool over SQLite. memspec builds it with no argument (with ``user`` under
    ``--per-user``) and calls ``clear_all_memory()`` between cases."""

    def __init__(self, path: Optional[str] = None, user: str = "") -> None:
        super().__init__(SqliteEntries(path or database_path(), user))
