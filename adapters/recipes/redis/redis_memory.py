"""Recipe: a memory-tool backend that keeps its memories in Redis (redis-py).

One Redis hash per store, ``<prefix>:<worker>:entries``: a field per folder and per file, keyed by
the canonical memory path, whose value is a one-byte kind (``d`` or ``f``) followed by the file's
bytes. The commands, the path grammar and every message come from ``../kv_memory.py``; this file
only maps its four storage methods onto Redis. Each write is one ``MULTI``/``EXEC`` transaction,
so a rename or a recursive delete is all or nothing.

Configuration, from the environment:

- ``MEMORY_REDIS_URL``: the server (default ``redis://127.0.0.1:6379/0``);
- ``MEMORY_REDIS_PREFIX``: the key prefix of this store (default ``memspec-memory``), followed by
  memspec's ``MEMSPEC_WORKER`` so that the workers of ``memspec check -j 4`` never share state.
  ``reset`` (``clear_all_memory``) deletes the keys under that prefix and nothing else.

Many users on one server: ``RedisMemoryTool(user=...)`` keeps that user's memories under
``<prefix>:<worker>:user:<hex of the id>:``, so no id's keys are a prefix of another's and no id
is read as a glob pattern (``u1*`` would also match ``u10``); ``reset`` then deletes that user's
keys only. ``memspec check --per-user`` passes each user's id:

    memspec check --not-on-folder --per-user --area users \\
        --python adapters/recipes/redis/redis_memory.py:RedisMemoryTool

    MEMORY_REDIS_URL=redis://127.0.0.1:6379/0 \\
        memspec check --not-on-folder --python adapters/recipes/redis/redis_memory.py:RedisMemoryTool
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, Iterable, Optional

import redis

# kv_memory.py sits one folder up; copy both files when you take this recipe.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kv_memory import Entries, Entry, KVMemoryTool  # noqa: E402


def _key(path: str) -> bytes:
    # Paths may hold lone surrogates (Claude's input is JSON): keep them as UTF-8 bytes.
    return path.encode("utf-8", "surrogatepass")


def _glob_escape(text: bytes) -> bytes:
    """A literal for Redis's glob patterns (`HSCAN … MATCH`): `*?[]\\` are special there."""
    out = bytearray()
    for byte in text:
        if byte in b"*?[]\\":
            out += b"\\"
        out.append(byte)
    return bytes(out)


class RedisEntries(Entries):
    """The engine's entries as fields of one Redis hash."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self.hash = f"{prefix}entries"

    def get(self, path: str) -> Optional[Entry]:
        """The field at ``path``."""
        value = self.client.hget(self.hash, _key(path))
        return None if value is None else (chr(value[0]), bytes(value[1:]))

    def below(self, path: str) -> Dict[str, Entry]:
        """Every field under ``path/``, by a cursor scan with a literal prefix pattern."""
        pattern = _glob_escape(_key(path + "/")) + b"*"
        return {
            field.decode("utf-8", "surrogatepass"): (chr(value[0]), bytes(value[1:]))
            for field, value in self.client.hscan_iter(self.hash, match=pattern, count=1000)
        }

    def apply(self, put: Dict[str, Entry], remove: Iterable[str]) -> None:
        """One MULTI/EXEC: the removals, then the writes."""
        pipe = self.client.pipeline(transaction=True)
        remove = [_key(p) for p in remove]
        if remove:
            pipe.hdel(self.hash, *remove)
        if put:
            pipe.hset(self.hash, mapping={_key(p): kind.encode() + data for p, (kind, data) in put.items()})
        pipe.execute()

    def command(self) -> Any:
        """The store's lock (redis-py's `Lock`, a key under the prefix set with NX and an expiry)
        for the whole command: a MULTI/EXEC makes the writes atomic, not the read before them."""
        return self.client.lock(f"{self.prefix}lock", timeout=30, blocking_timeout=60)

    def clear(self) -> None:
        """Delete every key under this store's prefix (memspec's `reset`), and nothing else."""
        pattern = _glob_escape(self.prefix.encode()) + b"*"
        keys = list(self.client.scan_iter(match=pattern, count=1000))
        if keys:
            self.client.delete(*keys)


class RedisMemoryTool(KVMemoryTool):
    """The memory tool over Redis. memspec builds it with no argument (with ``user`` under
    ``--per-user``) and calls ``clear_all_memory()`` between cases."""

    def __init__(self, url: Optional[str] = None, prefix: Optional[str] = None, user: Optional[str] = None) -> None:
        url = url or os.environ.get("MEMORY_REDIS_URL", "redis://127.0.0.1:6379/0")
        prefix = prefix or os.environ.get("MEMORY_REDIS_PREFIX", "memspec-memory")
        worker = os.environ.get("MEMSPEC_WORKER", "0")
        client = redis.Redis.from_url(url)
        client.ping()  # fail at start-up, with redis-py's message, rather than on the first call
        store = f"{prefix}:{worker}:"
        if user is not None:
            # Hex: injective, and free of the glob characters and separators an id may hold.
            store += f"user:{user.encode('utf-8', 'surrogatepass').hex()}:"
        super().__init__(RedisEntries(client, store))
