#!/usr/bin/env python3
"""Choosing a limit: memories are kept in a table of (folder, name) rows, so a memory can be at
most one folder deep (`/memories/notes.md`, `/memories/projects/plan.md`); a create deeper than
that is refused with an error, and the store is unchanged.

How a real store gets it: a two-column key (`namespace`, `key`), the shape many hosted
key-value and vector stores give. Every answer is otherwise the base's, and the refusal is an
honest one (`is_error` true): the cases that make deeper paths grade the refusal; the race whose
setup needs a deeper folder (`race.delete-create`) cannot be run on it, which is a skip with that
reason, not a backend that broke.

    python3 tests/backends/kv/one_folder_deep.py [--shared] {memories}   (--not-on-folder)
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, KVMemory, main  # noqa: E402


class OneFolderDeep(KVMemory):
    def create_check(self, path):
        if len(path.comps) > 2:
            raise Fail(f"Error: Cannot create {path.spelled}: memories can be at most one folder "
                       f"deep (/memories/<folder>/<name>).")
        super().create_check(path)


if __name__ == "__main__":
    sys.exit(main(OneFolderDeep, "one_folder_deep"))
