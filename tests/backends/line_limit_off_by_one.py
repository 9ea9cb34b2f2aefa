"""Broken: the 999,999-line limit is off by one: a file of exactly 999,999 lines is refused with
the limit message (`>=` where `>` was meant)."""

import os

import _proxy

MEMORIES = _proxy.memories_dir()
LIMIT = 999_999


def handle(reference, tool_input):
    path = tool_input.get("path")
    if tool_input.get("command") != "view" or not isinstance(path, str):
        return None
    if not path.startswith("/memories/") or ".." in path.split("/"):
        return None
    host = _proxy.host_path(MEMORIES, path)
    if not os.path.isfile(host) or os.path.islink(host):
        return None
    with open(host, "rb") as f:
        data = f.read()
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    if lines >= LIMIT:
        return {"content": "File {} exceeds maximum line limit of 999,999 lines.".format(path), "is_error": True}
    return None


_proxy.serve(handle)
