#!/usr/bin/env python3
"""Broken: an in-process read cache (path -> content), filled by view, is not invalidated by
delete or rename (it is by create, str_replace and insert, which write through it).

How a real store gets it: a read-through cache (a dict, memcached, an LRU in front of S3 or a
database) whose invalidation was added to the write path only; delete and rename go to the
store directly, so the cache keeps answering for a path that no longer exists.

Shortest: create /memories/a.txt "one"; view /memories/a.txt; delete /memories/a.txt;
view /memories/a.txt (still shows "one"; the reference: does not exist). The same after
rename /memories/a.txt /memories/b.txt. One client (per process cache).
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class StaleCache(KVMemory):
    def __init__(self, store, revision="ga-2026"):
        super().__init__(store, revision)
        self.cache = {}

    def reset(self):
        super().reset()
        self.cache = {}

    def view_lookup(self, path):
        k = self.key(path.comps)
        if path.comps and not path.trailing and k in self.cache:
            return "file", self.cache[k]
        kind, value = super().view_lookup(path)
        if kind == "file":
            self.cache[k] = value
        return kind, value

    def put(self, key, value):
        self.cache.pop(key, None)  # writes invalidate; delete_tree and rename_tree do not
        super().put(key, value)


if __name__ == "__main__":
    sys.exit(main(StaleCache, "stale_cache"))
