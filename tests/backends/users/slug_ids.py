#!/usr/bin/env python3
"""Broken: the user id is made a slug (every character but ASCII letters and digits becomes
`_`) before it names the user's store.

How a real store gets it: the id names a folder, a table or a key prefix, and a helper "makes
it safe" for that (`re.sub(r"[^A-Za-z0-9]", "_", user_id)`). Ids that differ only in
punctuation or separators (`a.b`, `a_b`, `a:b`, `a b`, `a-b`) then share one store: each reads,
overwrites and deletes the others' memories.

Shortest: as a.b create /memories/theirs.md; as a_b view /memories (lists it).

    python3 tests/backends/users/slug_ids.py --shared --user {user} {memories}
"""

import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

from _kv import KVMemory, UserStore, main  # noqa: E402


class SlugIds(UserStore):
    def namespace(self, user):
        return super().namespace(re.sub(r"[^A-Za-z0-9]", "_", user))


if __name__ == "__main__":
    sys.exit(main(KVMemory, "slug_ids", users=SlugIds))
