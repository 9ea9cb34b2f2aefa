#!/usr/bin/env python3
"""Broken: keys are case-folded, so `/memories/A.txt` and `/memories/a.txt` are one key.

How a real store gets it: a case-insensitive store or collation (MySQL's default
`utf8mb4_0900_ai_ci`/`_general_ci` on a key column, SQL Server's default collation, a
case-insensitive file system such as APFS/NTFS behind the store, or a `key.lower()` "to avoid
duplicates"). The listing shows the folded spelling.

Shortest: create /memories/A.txt; create /memories/a.txt (says it exists; the reference
creates it). One client; needs names that differ only by case.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class CaseFold(KVMemory):
    def key(self, comps):
        return "/memories" + "".join("/" + c.casefold() for c in comps)


if __name__ == "__main__":
    sys.exit(main(CaseFold, "case_fold"))
