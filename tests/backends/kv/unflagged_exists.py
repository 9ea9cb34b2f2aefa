#!/usr/bin/env python3
"""Broken: a create onto an existing path answers the spec's own refusal, but not as an error.

How a real store gets it: the handler returns its error strings instead of raising them (a
`return f"Error: File {path} already exists"` in a method whose caller only flags exceptions),
so the answer reads as a refusal, the store is untouched, and `is_error` is false.

Shortest: create /memories/notes.txt; create /memories/notes.txt → `Error: File
/memories/notes.txt already exists` with is_error false (the reference: the same text, flagged).
The truth is one fault, the missing flag (`errors.is-error-flag`): the file keeps its content,
so no write is wrong. One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, KVMemory, main  # noqa: E402


class UnflaggedExists(KVMemory):
    def do_create(self, f):
        try:
            return super().do_create(f)
        except Fail as e:
            if str(e).endswith("already exists"):
                return str(e)
            raise


if __name__ == "__main__":
    sys.exit(main(UnflaggedExists, "unflagged_exists"))
