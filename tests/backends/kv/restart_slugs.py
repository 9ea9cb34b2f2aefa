#!/usr/bin/env python3
"""Broken across restarts: when a process starts on a store that holds memories, it files every
memory at the top of /memories under `/memories/knowledge/<slug>.md`, so a later conversation
finds its notes moved and renamed.

How a real store gets it: a "tidy on load" step. A store that builds a knowledge index when it
opens re-keys the files it finds by a slug of their names (lower case, `-` for anything else,
`.md`), and writes them back under the index's folder. In one process nothing changes; the next
process, a later conversation, sees `/memories/knowledge/notes.md` where `/memories/notes.md`
was. Only `--shared` keeps a store between processes (the dict starts empty every time).

Shortest: create /memories/notes.md; stop the backend; start it again on the same store; view
/memories/notes.md (does not exist; the reference shows it).
"""

import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import KVMemory, main  # noqa: E402


def slug(name):
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "note"


class RestartSlugs(KVMemory):
    def __init__(self, store, revision="ga-2026"):
        super().__init__(store, revision)
        with self.store.txn():
            for key, value in self.store.scan("/memories/"):
                name = key[len("/memories/"):]
                if not name or "/" in name:
                    continue
                self.store.remove(key)
                self.store.put("/memories/knowledge/", b"")
                self.store.put(f"/memories/knowledge/{slug(name)}.md", value)


if __name__ == "__main__":
    sys.exit(main(RestartSlugs, "restart_slugs"))
