#!/usr/bin/env python3
"""Broken: delete takes its path as a glob pattern (`*`, `?`, `[...]`), so
`delete /memories/*` empties the store.

How a real store gets it: Redis `KEYS <path>` then `DEL` of what it returned (KEYS patterns are
globs: `*`, `?`, `[...]`, `\` escapes), or `SCAN MATCH <path>`; any store deleted through a
"pattern" API with the path passed unescaped. `*` is an ordinary character in a memory path
(the reference: a file named `*`), so `/memories/*` does not exist.

Shortest: create /memories/a.txt; delete /memories/* (answers "Successfully deleted
/memories/*"; the reference: does not exist); view /memories (empty). One client; needs a
path with `*`, `?` or `[`.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fnmatch  # noqa: E402

from _kv import KVMemory, main  # noqa: E402


class GlobDelete(KVMemory):
    def matches(self, comps):
        """What `KEYS <key>` and `KEYS <key>/*` return: the key taken as a glob."""
        pattern = self.key(comps)
        return [k for k, _ in self.store.scan("/memories/")
                if fnmatch.fnmatchcase(k, pattern) or fnmatch.fnmatchcase(k, pattern + "/*")]

    def delete_finds(self, path):
        return bool(self.matches(path.comps)) or super().delete_finds(path)

    def delete_tree(self, comps):
        for k in self.matches(comps):
            self.store.remove(k)


if __name__ == "__main__":
    sys.exit(main(GlobDelete, "glob_delete"))
