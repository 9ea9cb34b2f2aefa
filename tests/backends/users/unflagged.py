#!/usr/bin/env python3
"""Broken, but no crossing: each user's memories are their own (the correct per-user store),
and every error is sent in words only, with `is_error: false`.

How a real store gets it: a handler that returns "Error: …" strings instead of raising (seen in
attune-ai 16.4.0's memory tool). Claude reads a refusal it cannot tell from a success; no user
reaches another's memories. The users lane must say the flag (`errors.is-error-flag`), never
`users.isolated`.

    python3 tests/backends/users/unflagged.py --shared --user {user} {memories}
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kv"))

import _kv  # noqa: E402

flagged = _kv.answer


def unflagged(memory, tool_input):
    content, _ = flagged(memory, tool_input)
    return content, False


_kv.answer = unflagged

if __name__ == "__main__":
    sys.exit(_kv.main(_kv.KVMemory, "unflagged"))
