#!/usr/bin/env python3
"""Broken: each user's memories are their own, but a write is staged under a key named by the
path alone, then copied into the user's store.

How a real store gets it: an upload step (a temp object `staging/<path>` in a bucket, a
`tmp:<path>` key) written first and committed after, shared by every user of the store and run
without a transaction. Alone, every write lands where it should. When two users write the same
path at the same moment, one user's commit copies the other's staged bytes: user u1's
`/memories/log.md` holds u2's text. Only calls made at once show it (the `users.together` case);
one after another, nothing crosses.

    python3 tests/backends/users/staged_writes.py --shared --user {user} {memories}
"""

import contextlib
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

from _kv import KVMemory, UserStore, main  # noqa: E402

STAGING = "staging:"
# The upload's round trip: long enough that two users' writes of one path overlap.
UPLOAD = 0.05


class StagedWrites(UserStore):
    def txn(self):
        # No transaction around a command: the staging and the commit are two steps.
        return contextlib.nullcontext()

    def put(self, k, v):
        self.inner.put(STAGING + k, v)
        time.sleep(UPLOAD)
        staged = self.inner.get(STAGING + k)
        super().put(k, v if staged is None else staged)


if __name__ == "__main__":
    sys.exit(main(KVMemory, "staged_writes", users=StagedWrites))
