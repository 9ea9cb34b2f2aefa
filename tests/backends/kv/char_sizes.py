#!/usr/bin/env python3
"""Broken: listing sizes count characters, not bytes (`é` counts 1, not 2).

How a real store gets it: the size is taken from the decoded text (`len(str)` in Python,
`LENGTH(text)` in SQL, which counts characters) instead of the stored bytes
(`OCTET_LENGTH`, `len(bytes)`, the object's Content-Length).

Shortest: create /memories/e.txt "é"; view /memories (`1B`; the reference `2B`). One client;
needs non-ASCII content and a listing.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class CharSizes(KVMemory):
    def size_of(self, value):
        return len(value.decode("utf-8", "replace"))


if __name__ == "__main__":
    sys.exit(main(CharSizes, "char_sizes"))
