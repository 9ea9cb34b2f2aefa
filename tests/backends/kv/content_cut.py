#!/usr/bin/env python3
"""Broken: stored values are cut at 64 KiB (65,536 bytes), silently.

How a real store gets it: a value column or attribute with a size limit and no strict mode
(MySQL `BLOB`/`TEXT` is 65,535 bytes and truncates with only a warning outside strict mode;
a fixed-size buffer in a driver; a DynamoDB-style item limit worked around by cutting).
Every write is cut (create, str_replace, insert).

Shortest: create /memories/big.txt with 70,000 bytes; view /memories (the listing says
`64.0K`; the reference `68.4K`), or view /memories/big.txt with view_range [1, -1] (the end is
missing). One client; needs content over 65,536 bytes.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


LIMIT = 65_536


class ContentCut(KVMemory):
    def put(self, key, value):
        super().put(key, value[:LIMIT])


if __name__ == "__main__":
    sys.exit(main(ContentCut, "content_cut"))
