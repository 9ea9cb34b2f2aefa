#!/usr/bin/env python3
"""Broken reset: the JSON-file store of docs/guide/json-store/ whose reset answers ok and
forgets nothing.

Every answer to a tool call is the example's own, right ones; only `reset` is wrong: the store
in `{state}/memories.json` keeps the last case's memories. memspec views /memories after every
reset answered ok, so the run stops at the first one with one message (`after `reset` answered
ok, `view /memories` still listed …`) and exit 3, and no case is judged on a store that was
not emptied (no finding against the answers).

    memspec check --backend 'python3 tests/backends/users/json_reset_forgets_nothing.py --state {state} --user {user}'
    memspec check --python tests/backends/users/json_reset_forgets_nothing.py:make --per-user
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../docs/guide/json-store"))

import json_store  # noqa: E402


def make(state, user=None):
    handle = json_store.make(state, user)

    def reset():
        """The bug: nothing is forgotten (a reset that cleared a cache and not the file)."""

    handle.reset = reset
    return handle


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", default=os.environ.get("MEMSPEC_STATE"), required=False)
    parser.add_argument("--user", default=os.environ.get("MEMSPEC_USER"))
    args = parser.parse_args()
    json_store.serve(make(args.state, args.user), sys.stdin.buffer, sys.stdout.buffer)
