#!/usr/bin/env python3
"""A reset that forgets nothing: `reset` is answered ok, and every memory stays.

    python3 tests/backends/kv/reset_keeps.py [--shared] {memories}

The bug of a handler whose reset rebuilds an object over a store that outlives it (a JSON file,
a database): every case after the first starts on the memories of the cases before it. memspec
must say so once, after the first reset that left something (`after `reset` answered ok, `view
/memories` still listed …`), exit 3, and judge no case on that store.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


class ResetKeeps(KVMemory):
    def reset(self):
        return None  # "ok", and nothing forgotten


if __name__ == "__main__":
    sys.exit(main(ResetKeeps, "reset_keeps"))
