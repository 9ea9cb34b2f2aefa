#!/usr/bin/env python3
"""Broken across restarts: a rename is served but never saved, so after a restart the memory is
back at its old path and gone from the new one.

How a real store gets it: every memory lives in one JSON file, kept in memory and read again
(under an `flock`, at the start of each command) only when the file changed since this process
last read or wrote it, and written back (temp file, fsync, rename into place) when a command that
wrote ends, so several processes share it safely. To skip rewriting the file
after a read, `put` and `remove` mark the store dirty; `rename` moves the entries inside the
dict directly (one `pop` and one assignment per key, no copy of the bytes), which marks nothing.
In one process every answer is right. A later conversation, a new process on the same file,
finds the memory where it was before the rename: the move was acknowledged and is lost.

Shortest: create /memories/draft.md; rename it to /memories/final.md; stop the backend; start
it again on the same store; view /memories/final.md (does not exist; the reference shows it).

    python3 tests/backends/kv/restart_rename_unsaved.py [--fixed] {memories}   (--not-on-folder)

`--fixed` is its twin: the rename marks the store dirty, and it passes every lane.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _kv  # noqa: E402

FIXED = "--fixed" in sys.argv
ARGV = [a for a in sys.argv[1:] if a != "--fixed"]


class JsonFileStore:
    """key -> bytes, all in one JSON file named after the memories folder, loaded at start."""

    name = "json-file"

    def __init__(self, memories):
        folder = os.environ.get("MEMSPEC_KV_DIR") or tempfile.gettempdir()
        digest = hashlib.sha256(os.path.abspath(memories).encode("utf-8", "surrogateescape"))
        self.file = os.path.join(folder, f"memspec-kv-{digest.hexdigest()[:16]}.json")
        self.lock = open(f"{self.file}.lock", "a")
        self.d = {}
        self.seen = None  # the file's identity when this process last read or wrote it
        self.depth = 0
        self.dirty = False

    def identity(self):
        try:
            st = os.stat(self.file)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def load(self):
        now = self.identity()
        if now is not None and now == self.seen:
            return
        try:
            with open(self.file, encoding="utf-8") as f:
                self.d = {k: v.encode("latin-1") for k, v in json.load(f).items()}
        except (OSError, ValueError):
            self.d = {}
        self.seen = now

    @contextlib.contextmanager
    def txn(self):
        if self.depth == 0:
            fcntl.flock(self.lock, fcntl.LOCK_EX)
            self.load()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                try:
                    if self.dirty:
                        self.save()
                finally:
                    fcntl.flock(self.lock, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def read(self):
        """A read outside a command's transaction sees the file as it is now."""
        if self.depth:
            yield
            return
        with self.txn():
            yield

    def save(self):
        temp = f"{self.file}.tmp"
        with open(temp, "w", encoding="utf-8") as f:
            json.dump({k: v.decode("latin-1") for k, v in self.d.items()}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, self.file)
        self.seen = self.identity()
        self.dirty = False

    def get(self, k):
        with self.read():
            return self.d.get(k)

    def put(self, k, v):
        with self.txn():
            self.d[k] = bytes(v)
            self.dirty = True

    def remove(self, k):
        with self.txn():
            self.d.pop(k, None)
            self.dirty = True

    def move(self, old, new):
        """The rename's fast path: the entry moves inside the dict."""
        self.d[new] = self.d.pop(old)
        if FIXED:
            self.dirty = True

    def scan(self, prefix):
        with self.read():
            return sorted((k, v) for k, v in self.d.items() if k.startswith(prefix))

    def wipe(self):
        with self.txn():
            self.d.clear()
            self.dirty = True


class MovingRename(_kv.KVMemory):
    def rename_tree(self, old, new):
        ko, kn = self.key(old), self.key(new)
        items = self.subtree(old)
        # Whatever is at the destination goes first (the base's order), then each entry moves.
        for k, _ in self.subtree(new):
            self.store.remove(k)
        for k, _ in items:
            self.store.move(k, kn + k[len(ko):])


_kv.SqliteStore = JsonFileStore

if __name__ == "__main__":
    sys.exit(_kv.main(MovingRename, "restart_rename_unsaved", ["--shared", *ARGV]))
