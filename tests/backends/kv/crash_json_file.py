#!/usr/bin/env python3
"""Broken by a crash: every memory lives in one JSON file, rewritten in place for every command
that writes (`open(store, "w")` then `json.dump`), the way small apps and notebooks keep a
memory store.

In one process, and across clean restarts, every answer is right. Killed on entry to the write
that follows the truncating open, the file is empty: not one memory is left, not only the one
the command touched.

Shortest: create /memories/context.md; create /memories/notes.md, killed on entry to its
write; start again: view /memories lists nothing, /memories/context.md is gone.

    python3 tests/backends/kv/crash_json_file.py {memories}     (run with --not-on-folder)
"""

import contextlib
import hashlib
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _kv  # noqa: E402


class JsonFileStore:
    """key -> bytes, all in one JSON file beside the memories folder's name, loaded at start."""

    name = "json-file"

    def __init__(self, memories):
        folder = os.environ.get("MEMSPEC_KV_DIR") or tempfile.gettempdir()
        digest = hashlib.sha256(os.path.abspath(memories).encode("utf-8", "surrogateescape"))
        self.file = os.path.join(folder, f"memspec-kv-{digest.hexdigest()[:16]}.json")
        try:
            with open(self.file, encoding="utf-8") as f:
                self.d = {k: v.encode("latin-1") for k, v in json.load(f).items()}
        except (OSError, ValueError):
            self.d = {}
        self.depth = 0

    @contextlib.contextmanager
    def txn(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
        if self.depth == 0:
            self.save()

    def save(self):
        with open(self.file, "w", encoding="utf-8") as f:
            json.dump({k: v.decode("latin-1") for k, v in self.d.items()}, f)

    def get(self, k):
        return self.d.get(k)

    def put(self, k, v):
        self.d[k] = bytes(v)
        if not self.depth:
            self.save()

    def remove(self, k):
        self.d.pop(k, None)
        if not self.depth:
            self.save()

    def scan(self, prefix):
        return sorted((k, v) for k, v in self.d.items() if k.startswith(prefix))

    def wipe(self):
        self.d.clear()
        self.save()


_kv.SqliteStore = JsonFileStore

if __name__ == "__main__":
    sys.exit(_kv.main(_kv.KVMemory, "crash_json_file", ["--shared", *sys.argv[1:]]))
