#!/usr/bin/env python3
"""Broken: one user's listing scans the store with a glob of the user id (`SCAN MATCH u1*`).

How a real store gets it: a Redis (or any key-value) store keeps user `u1`'s memory
`/memories/a.md` at the key `u1:/memories/a.md`, reads and writes keys exactly, but lists a
user's memories with `SCAN 0 MATCH u1*` and cuts each key at its first `:`. The pattern has no
separator and the id is not escaped, so `u1*` also matches `u10:/memories/…` and the id `a*`
matches every key of `ab`: their memories show up in the other user's listings (and in anything
else built on the scan: folder deletes and renames, and `reset`).

Shortest: as u10 create /memories/theirs.md; as u1 view /memories (lists theirs.md).

    python3 tests/backends/users/glob_scan.py --shared --user {user} {memories}
"""

import fnmatch
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

from _kv import KVMemory, UserStore, main  # noqa: E402


class GlobScan(UserStore):
    def namespace(self, user):
        return user + ":"

    def scan(self, prefix):
        match = re.compile(fnmatch.translate(self.user + "*"), re.S)
        found = []
        for key, value in self.inner.scan(""):
            if match.match(key):
                path = key.split(":", 1)[1]
                if path.startswith(prefix):
                    found.append((path, value))
        return sorted(found)


if __name__ == "__main__":
    sys.exit(main(KVMemory, "glob_scan", users=GlobScan))
