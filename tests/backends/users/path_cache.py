#!/usr/bin/env python3
"""Broken: every user's store is their own, but a read cache in front of it is keyed by path.

How a real store gets it: memories live per user (here behind a namespace of their own), and a
cache shared by the application's workers (Redis, memcached) saves the database a read:
`cache[path]`, filled on every write and read. The cache key forgot the user, so a user who
views a path another user wrote last is served the other user's memory.

Shortest: as u2 create /memories/theirs.md; as u1 view /memories/theirs.md (shown).

    python3 tests/backends/users/path_cache.py --shared --user {user} {memories}
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

from _kv import KVMemory, UserStore, main  # noqa: E402

CACHE = "cache:"


class PathCache(UserStore):
    def get(self, k):
        cached = self.inner.get(CACHE + k)
        if cached is not None:
            return cached
        value = super().get(k)
        if value is not None:
            self.inner.put(CACHE + k, value)
        return value

    def put(self, k, v):
        super().put(k, v)
        self.inner.put(CACHE + k, v)

    def remove(self, k):
        super().remove(k)
        self.inner.remove(CACHE + k)


if __name__ == "__main__":
    sys.exit(main(KVMemory, "path_cache", users=PathCache))
