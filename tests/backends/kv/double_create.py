#!/usr/bin/env python3
"""Broken with two clients only: create checks that the path is free, works ~20 ms, then
writes with an upsert, so two clients creating one path both answer success (the second
silently overwrites the first).

How a real store gets it: EXISTS then SET (Redis without `SET NX`), HEAD then PUT (S3 without
`If-None-Match: *`), SELECT then `INSERT OR REPLACE`/`UPSERT` outside one transaction.
One process is always right: the race needs two writers on one store.

Run with `--shared`. Shortest: at the same time from two processes, create /memories/x.txt
"A" and create /memories/x.txt "B": both answer `File created successfully at:` (the
reference: exactly one does, the other gets `Error: File /memories/x.txt already exists`).
Needs two clients on one store.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import time  # noqa: E402

from _kv import KVMemory, main  # noqa: E402


DELAY = 0.02


class DoubleCreate(KVMemory):
    def create_file(self, path, data):
        with self.store.txn():
            self.create_check(path)
        time.sleep(DELAY)
        with self.store.txn():
            self.put(self.key(path.comps), data)  # upsert: replaces whatever came meanwhile


if __name__ == "__main__":
    sys.exit(main(DoubleCreate, "double_create"))
