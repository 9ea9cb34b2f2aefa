#!/usr/bin/env python3
"""Broken: create stores its text with a newline added when it has none.

How a real store gets it: `print(text, file=f)` or a "POSIX text files end with a newline"
normalisation on write. A view cannot show it (a final newline is invisible in a numbered
view), so only the bytes tell; a `str_replace` whose `old_str` is the whole expected text
finds the stored bytes different.

Shortest: create /memories/a.txt "abc"; the stored bytes are `abc\\n`. One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class NewlineCreate(KVMemory):
    def create_file(self, path, data):
        if not data.endswith(b"\n"):
            data += b"\n"
        super().create_file(path, data)


if __name__ == "__main__":
    sys.exit(main(NewlineCreate, "newline_create"))
