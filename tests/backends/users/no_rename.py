#!/usr/bin/env python3
"""Broken, but no crossing: each user's memories are their own (the correct per-user store),
and every `rename` is refused with an error.

How a real store gets it: a handler that reads the wrong field of the rename input (seen in
langchain-anthropic 1.7.10's state-backed memory tool, which requires `path` where Claude sends
`old_path`). A user's own rename that fails leaves that user's file where it was; no user
reaches another's memories. The users lane must say the rename's rule, never `users.isolated`.

    python3 tests/backends/users/no_rename.py --shared --user {user} {memories}
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

import _kv  # noqa: E402

answered = _kv.answer


def no_rename(memory, tool_input):
    if isinstance(tool_input, dict) and tool_input.get("command") == "rename":
        return "Error: path: Field required", True
    return answered(memory, tool_input)


_kv.answer = no_rename

if __name__ == "__main__":
    sys.exit(_kv.main(_kv.KVMemory, "no_rename"))
