#!/usr/bin/env python3
"""Broken with two clients only: str_replace and insert read the value, work ~20 ms, then write
it back without a lock or a compare-and-swap, so two clients editing one file lose an edit.

How a real store gets it: GET, edit in the application, SET (Redis without WATCH/MULTI, S3
without If-Match, SQL SELECT then UPDATE outside one transaction or without a version
column). One process is always right: the race needs two writers on one store.

Run with `--shared` (one SQLite store for every process on the same {memories}). Shortest:
create /memories/f.txt "one\ntwo\n"; then at the same time from two processes:
str_replace one -> ONE and str_replace two -> TWO; both answer success; view /memories/f.txt
shows only one of the edits (the reference keeps both). Needs two clients on one store.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import time  # noqa: E402

from _kv import KVMemory, main  # noqa: E402


DELAY = 0.02


class LostUpdate(KVMemory):
    def modify(self, path, missing, edit):
        with self.store.txn():
            content = self.read_text(path, missing)
        result, answer = edit(content)
        time.sleep(DELAY)
        with self.store.txn():
            self.put(self.key(path.comps), result)  # blind write: no check it is unchanged
        return answer


if __name__ == "__main__":
    sys.exit(main(LostUpdate, "lost_update"))
