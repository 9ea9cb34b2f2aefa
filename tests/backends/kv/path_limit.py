#!/usr/bin/env python3
"""A choice, not a fault: paths longer than 255 characters are refused, cleanly.

How a real store gets it: a key column declared `VARCHAR(255)`, an object store's key limit, a
documented limit of the product. Every command that would make such a path (create, and rename
onto it) answers `Error: A path is at most 255 characters.` with is_error true and changes
nothing. The spec gives no path limit; the page lets a backend refuse what it cannot store. This
is a decision (INFO, named in the choices line), never a write fault.

Shortest: create /memories/<260 characters>.txt → the refusal; the reference creates it.
One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, KVMemory, main  # noqa: E402

LIMIT = 255


def check(spelled):
    if isinstance(spelled, str) and len(spelled) > LIMIT:
        raise Fail(f"Error: A path is at most {LIMIT} characters.")


class PathLimit(KVMemory):
    def do_create(self, f):
        check(f.string("path"))
        return super().do_create(f)

    def do_rename(self, f):
        check(f.string("new_path"))
        return super().do_rename(f)


if __name__ == "__main__":
    sys.exit(main(PathLimit, "path_limit"))
