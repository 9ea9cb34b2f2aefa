#!/usr/bin/env python3
"""Broken: keys are cut at 255 characters, silently.

How a real store gets it: a key column declared `VARCHAR(255)` in a database outside strict mode
(MySQL truncates with only a warning), or a driver that cuts a key to the column's size. A path
of up to 255 characters is stored as it is; a longer one is stored (and looked up) under its
first 255 characters, and every answer is a success. So a long path is listed under another
name, and two long paths that share their first 255 characters are one memory: the second
create answers `already exists`, or (a rename onto it) overwrites the first.

Shortest: create /memories/<300 characters>.txt "x"; view /memories: the listing names a path
of 255 characters that no create made. Its fixed twin refuses what it cannot keep: path_limit.py.
One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402

LIMIT = 255


class KeyCut(KVMemory):
    def key(self, comps):
        return super().key(comps)[:LIMIT]

    def marker(self, comps):
        # A folder's marker is its key and a `/`, cut as one column value.
        return (super().key(comps) + "/")[:LIMIT]


if __name__ == "__main__":
    sys.exit(main(KeyCut, "key_cut"))
