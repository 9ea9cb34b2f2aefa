#!/usr/bin/env python3
"""A command left out: every `insert` is refused.

How a real store gets it: a handler written against five of the six commands (`insert` is the
one most often left for later), whose dispatcher answers the sixth with an error. Every insert,
however valid, answers `Error: insert is not supported by this store`, is_error true, and
changes nothing. One fault: the report should say that every insert call was refused, once,
not file each insert rule and each file the inserts left unchanged as a cause of its own.

Shortest: create /memories/a.txt "x\\n"; insert at line 1 "y" → the refusal; the reference
inserts. One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, KVMemory, main  # noqa: E402


class NoInsert(KVMemory):
    def do_insert(self, f):
        raise Fail("Error: insert is not supported by this store")


if __name__ == "__main__":
    sys.exit(main(NoInsert, "no_insert"))
