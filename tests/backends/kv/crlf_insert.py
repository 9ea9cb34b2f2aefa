#!/usr/bin/env python3
"""Broken: insert rewrites the file's line endings: `\\r\\n` becomes `\\n` and the final newline
is dropped.

How a real store gets it: the edit is made on `text.splitlines()` and written back with
`"\\n".join(lines)`, which loses both. A view cannot show it: it may hide `\\r` and a final
newline is invisible, so only the bytes tell. The tool itself can check bytes: a `str_replace`
whose `old_str` is the whole expected text succeeds only if exactly those bytes are stored.

Shortest: create /memories/a.txt "a\\r\\nb\\r\\n"; insert line 1 "X\\n" → stored `a\\nX\\nb`
(the reference: `a\\r\\nX\\nb\\r\\n`). One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, Path, main  # noqa: E402


class CrlfInsert(KVMemory):
    def do_insert(self, f):
        result = super().do_insert(f)
        path = f.string("path")
        key = self.key(Path(path).comps)
        with self.store.txn():
            data = self.store.get(key)
            if data is not None:
                text = data.decode("utf-8", "surrogatepass")
                self.store.put(key, "\n".join(text.splitlines()).encode("utf-8", "surrogatepass"))
        return result


if __name__ == "__main__":
    sys.exit(main(CrlfInsert, "crlf_insert"))
