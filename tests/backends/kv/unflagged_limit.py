#!/usr/bin/env python3
"""Broken flag, honest limit: the store holds at most 100 files, and a create past that is
refused in words (`Error: Maximum number of files (100) reached`) but not as an error.

How a real store gets it: a quota check that returns its message instead of raising it (the
handler's caller flags exceptions only), so the answer reads as a refusal, nothing is written,
and `is_error` is false. A limit the store refuses is its choice; the one fault is the flag
(`errors.is-error-flag`). No memory is lost: the refused create never made one.

Shortest: create 100 files; create /memories/f101.md → the refusal above, unflagged; view
/memories/f101.md → does not exist. One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402

MAX_FILES = 100


class UnflaggedLimit(KVMemory):
    def do_create(self, f):
        files = [k for k, _ in self.store.scan("/memories/") if not k.endswith("/")]
        exists = self.store.get(f.string("path")) is not None
        if len(files) >= MAX_FILES and not exists:
            return f"Error: Maximum number of files ({MAX_FILES}) reached"
        return super().do_create(f)


if __name__ == "__main__":
    sys.exit(main(UnflaggedLimit, "unflagged_limit"))
