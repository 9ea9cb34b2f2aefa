#!/usr/bin/env python3
"""Broken: a memory is keyed by its path with `.md` added when its name has no extension, so
`/memories/notes` and `/memories/notes.md` are one memory.

How a real store gets it: the store keeps every memory as a Markdown document (a file
`<name>.md`, a row whose key is the document name) and adds the extension it stores under,
so that `view /memories/notes` "just works" for a model that left it off. Each path alone is
served right; two paths that differ only by that suffix share one key: the second create finds
the first (`already exists`), a delete of one removes the other.

Shortest: create /memories/notes.md; create /memories/notes → refused, the path is taken.

    python3 tests/backends/kv/extension_key.py [--shared] {memories}   (run with --not-on-folder)
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import ROOT, KVMemory, main  # noqa: E402


class ExtensionKey(KVMemory):
    def key(self, comps):
        comps = list(comps)
        if comps and "." not in comps[-1]:
            comps[-1] += ".md"
        return ROOT + "".join("/" + c for c in comps)


if __name__ == "__main__":
    sys.exit(main(ExtensionKey, "extension_key"))
