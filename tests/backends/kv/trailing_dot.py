#!/usr/bin/env python3
"""Broken: trailing dots and spaces are stripped from every name before it becomes a key, so
`/memories/notes.` and `/memories/notes` (or `/memories/a ` and `/memories/a`) are one key.

How a real store gets it: Windows file systems (NTFS, SMB shares, Azure Files) drop trailing
dots and spaces from names, and some key "sanitizers" `strip()` names; a store behind them
maps both spellings onto one entry. The listing shows the stripped spelling.

Shortest: create /memories/notes; create /memories/notes. (says it exists; the reference
creates it). One client; needs names ending in `.` or a space.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class TrailingDot(KVMemory):
    def key(self, comps):
        return "/memories" + "".join("/" + (c.rstrip(". ") or c) for c in comps)


if __name__ == "__main__":
    sys.exit(main(TrailingDot, "trailing_dot"))
