#!/usr/bin/env python3
"""The correct key-value backend: the base of this folder, unmodified.

    python3 tests/backends/kv/correct.py [--shared] [--revision ga-2026|beta-2025] {memories}

No bug: it must pass `memspec check --not-on-folder` with no MUST failure, and `memspec fuzz`
against the reference must find nothing (with `--shared`, also with several clients).
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(KVMemory, "correct"))
