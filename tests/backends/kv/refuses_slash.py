#!/usr/bin/env python3
"""Broken: every path that starts with `/` is refused, so every call is.

How a real store gets it: a path validator written for relative keys (`notes.txt`), which takes
the leading slash Claude always sends for an absolute path it must not open. Every command
answers `Error: invalid memory path '/memories/notes.txt'` with is_error true. The truth is
one line: every call was refused; here is the first answer.

Shortest: view /memories → refused (the reference lists the empty root). One client.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _kv import Fail, KVMemory, main  # noqa: E402


class RefusesSlash(KVMemory):
    def call(self, inp):
        if isinstance(inp, dict):
            for field in ("path", "old_path"):
                value = inp.get(field)
                if isinstance(value, str) and value.startswith("/"):
                    raise Fail(f"Error: invalid memory path '{value}'")
        return super().call(inp)


if __name__ == "__main__":
    sys.exit(main(RefusesSlash, "refuses_slash"))
