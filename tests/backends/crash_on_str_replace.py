"""Broken: the process dies on the first str_replace (an unhandled exception)."""

import sys

import _proxy


def handle(reference, tool_input):
    if tool_input.get("command") == "str_replace":
        sys.stderr.write("Traceback (most recent call last):\nKeyError: 'old_str'\n")
        sys.stderr.flush()
        sys.exit(1)
    return None


_proxy.serve(handle)
