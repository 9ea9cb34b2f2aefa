#!/usr/bin/env python3
"""Broken: a folder listing silently stops after 100 keys.

How a real store gets it: one page of a paginated listing taken as the whole (S3
`ListObjectsV2` without following `ContinuationToken` (1,000 there), Redis `SCAN ... COUNT 100`
without following the cursor, a `LIMIT 100` left in the query), with no notice that more exist.

Shortest: create /memories/f000.txt ... /memories/f100.txt (101 files in one folder);
view /memories (100 entries shown; the reference shows 101). One client; needs more than 100
keys under the listed folder.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


PAGE = 100


class ListingCut(KVMemory):
    def list_keys(self, prefix):
        return self.store.scan(prefix)[:PAGE]  # the first page only


if __name__ == "__main__":
    sys.exit(main(ListingCut, "listing_cut"))
