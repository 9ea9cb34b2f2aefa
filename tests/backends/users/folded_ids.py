#!/usr/bin/env python3
"""Broken: the user id is "normalised" (NFKC, trimmed, case-folded) before it keys the store.

How a real store gets it: a helper meant to make ids tidy (`user_id.strip().lower()`, or a
case-insensitive collation on the column, or Unicode normalisation for "the same" name) runs
on the way to the store. Distinct users whose ids differ only in case (`alice`, `Alice`), in a
trailing space (`ann`, `ann `) or in Unicode form (`café` composed and decomposed) then share
one store: each reads, overwrites and deletes the other's memories.

Shortest: as Alice create /memories/theirs.md; as alice view /memories (lists it).

    python3 tests/backends/users/folded_ids.py --shared --user {user} {memories}
"""

import os
import sys
import unicodedata

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

from _kv import KVMemory, UserStore, main  # noqa: E402


class FoldedIds(UserStore):
    def namespace(self, user):
        tidy = unicodedata.normalize("NFKC", user).strip().casefold()
        return super().namespace(tidy)


if __name__ == "__main__":
    sys.exit(main(KVMemory, "folded_ids", users=FoldedIds))
