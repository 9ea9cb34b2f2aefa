#!/usr/bin/env python3
"""Broken: names are NFC-normalized before they become keys, so an NFD name and its NFC twin
are one key.

How a real store gets it: a store or a layer that normalizes Unicode (macOS HFS+ stored NFD,
some sync tools and databases normalize to NFC, a "sanitize the key" helper calls
`unicodedata.normalize`). The memory tool's paths are strings: `e` + U+0301 and `é` (U+00E9)
are two different names to the reference.

Shortest: create /memories/e\u0301.txt; create /memories/\u00e9.txt (says it exists; the
reference creates it). The listing shows the NFC spelling. One client; needs NFD (decomposed)
names, e.g. a letter followed by a combining accent.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import unicodedata  # noqa: E402

from _kv import KVMemory, main  # noqa: E402


class NfcNames(KVMemory):
    def key(self, comps):
        return unicodedata.normalize("NFC", super().key(comps))


if __name__ == "__main__":
    sys.exit(main(NfcNames, "nfc_names"))
