"""Broken: resolves paths with os.path.realpath and uses the result without checking that it is
still inside the memories folder, so a symbolic link inside it is followed out (view reads
through it, create writes through it). Paths without links go to the reference."""

import os

import _naive
import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    path = tool_input.get("path")
    if tool_input.get("command") not in ("view", "create") or not isinstance(path, str):
        return None
    if not path.startswith("/memories/") or ".." in path.split("/"):
        return None
    spelled = os.path.normpath(_proxy.host_path(MEMORIES, path))
    resolved = os.path.realpath(spelled)
    if resolved == spelled:
        return None
    return _naive.run(tool_input, resolved)


_proxy.serve(handle)
