#!/usr/bin/env python3
"""A backend that cannot reset: `reset` is answered no, so memspec starts a process per case.

    python3 tests/backends/kv/no_reset.py --shared PLACE

Started on `{memories}` (or any path in `{state}`), each new process has a new, empty store, and
the backend is correct. Started on a fixed PLACE (a database file that outlives every sandbox, as
a store at a fixed path in the user's home does), the second case's process starts on the first
case's memories: memspec must say, once, that the store lives where it does not empty it
(`memspec started the backend on a new sandbox and a new, empty {state}, and `view /memories`
already listed …`), exit 3, and judge no case on that store.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class NoReset(KVMemory):
    def reset(self):
        return "this backend cannot forget its memories"


if __name__ == "__main__":
    sys.exit(main(NoReset, "no_reset"))
