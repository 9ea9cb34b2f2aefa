#!/usr/bin/env python3
"""Broken: keys are made by replacing `/` with `_` after `/memories/`, so `/memories/a/b.txt`
and `/memories/a_b.txt` are the same key.

How a real store gets it: a store whose keys may not contain `/` (a flat table, a cache, an
object store used through a "safe key" helper, a filename on one folder) and an escaping that
is not injective: `/` becomes `_` and `_` itself is not escaped. Listings are then confused
too: a key is read back with every `_` taken for a `/`, so `/memories/a_b.txt` lists as
`/memories/a/b.txt`, under a folder `a/` that view says does not exist. Paths without `_`
work.

Shortest: create /memories/a/b.txt; create /memories/a_b.txt (says it exists; the reference
creates it). One client; needs two paths that differ only by `/` versus `_`.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class SeparatorKey(KVMemory):
    def key(self, comps):
        return "/memories/" + "_".join(comps) if comps else "/memories"

    def marker(self, comps):
        return "/memories/" + "/".join(comps) + "/"

    def decode(self, k):
        """The path a key is read back as: every `_` taken for a `/`."""
        return "/memories/" + k[len("/memories/"):].replace("_", "/")

    def list_keys(self, prefix):
        return sorted((self.decode(k), v) for k, v in self.store.scan("/memories/")
                      if self.decode(k).startswith(prefix))

    def subtree(self, comps):
        ko = self.key(comps)
        under = self.decode(ko) + "/"
        return [(k, v) for k, v in self.store.scan(ko)
                if k == ko or self.decode(k).startswith(under)]


if __name__ == "__main__":
    sys.exit(main(SeparatorKey, "separator_key"))
