#!/usr/bin/env python3
"""Broken: two paths become one document id, and create is an upsert by id.
How a real store gets it: a document store whose ids may not hold `/` (Firestore, Cosmos DB, a
file name made from the path) turns `/memories/a/b.txt` into the id `a_b.txt`, as
`/memories/a_b.txt` also is; its create writes by id (`set()`, `upsert`), refusing only when the
document already found holds the very path asked. Creating `/memories/a_b.txt` then silently
replaces the memory `/memories/a/b.txt`: two memories became one (memories lost).
Shortest: create /memories/a/b.txt "1"; create /memories/a_b.txt "2" (success);
view /memories/a/b.txt → "2" (the reference shows "1"). One client.
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from separator_key import SeparatorKey  # noqa: E402
from _kv import main  # noqa: E402


class MergedUpsert(SeparatorKey):
    def create_file(self, path, data):
        key = self.key(path.comps)
        with self.store.txn():
            asked = "/memories/" + "/".join(path.comps)
            if self.kind_of(path.comps) == "file" and self.decode(key) != asked:
                # The id is another path's document: written over, as an upsert by id does.
                self.put(key, data)
                return
            self.create_check(path)
            self.put(key, data)


if __name__ == "__main__":
    sys.exit(main(MergedUpsert, "merged_upsert"))
