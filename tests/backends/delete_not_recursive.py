"""Broken: deleting a folder deletes only the files in it, leaves the folders, and reports
success (MUST: delete is recursive)."""

import os

import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    if tool_input.get("command") != "delete":
        return None
    path = tool_input.get("path", "")
    if path.rstrip("/") in ("", "/memories") or ".." in path:
        return None
    folder = _proxy.host_path(MEMORIES, path)
    if not os.path.isdir(folder) or os.path.islink(folder) or not os.listdir(folder):
        return None
    for root, _dirs, files in os.walk(folder):
        for name in files:
            os.remove(os.path.join(root, name))
    return {"content": "Successfully deleted {}".format(path), "is_error": False}


_proxy.serve(handle)
