#!/usr/bin/env python3
"""Broken: a memory is looked up with `WHERE user_id LIKE ? AND path = ?`, the id bound as is.

How a real store gets it: one SQL table `(user_id, path, content)` shared by every user, and a
lookup helper written with `LIKE` (so that the same query "also works" for prefixes). Bound
unescaped, `_` in an id matches any one character and `%` any run; and SQLite's `LIKE` ignores
ASCII case. So the ids `a_c`, `a%` and `Alice` read the memories of `abc`, `ab` and `alice`:
views and listings show the first matching row. Writes use the exact id, so each user's own
writes stay their own, and the crossing is a read.

Shortest: as abc create /memories/theirs.md; as a_c view /memories/theirs.md (shown).

    python3 tests/backends/users/like_ids.py --shared --user {user} {memories}
"""

import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

from _kv import KVMemory, UserStore, main  # noqa: E402

SEP = "\x1f"


def like(pattern):
    """SQLite's LIKE: `_` one character, `%` any run, ASCII case ignored."""
    out = []
    for c in pattern:
        out.append("." if c == "_" else ".*" if c == "%" else re.escape(c))
    return re.compile("".join(out), re.S | re.I)


class LikeIds(UserStore):
    def namespace(self, user):
        return user + SEP

    def rows(self):
        """(user_id, path, value) of every row whose user_id is LIKE this user's id."""
        match = like(self.user)
        for key, value in self.inner.scan(""):
            user, _, path = key.partition(SEP)
            if match.fullmatch(user):
                yield user, path, value

    def get(self, k):
        own = self.inner.get(self.ns + k)
        if own is not None:
            return own
        # `SELECT content FROM memories WHERE user_id LIKE ? AND path = ?`: the first row.
        for _, path, value in self.rows():
            if path == k:
                return value
        return None

    def scan(self, prefix):
        found = {}
        for _, path, value in self.rows():
            if path.startswith(prefix):
                found.setdefault(path, value)
        return sorted(found.items())


if __name__ == "__main__":
    sys.exit(main(KVMemory, "like_ids", users=LikeIds))
