"""Broken: `delete /memories/` (any spelling of the root) deletes the memories folder itself and
everything in it instead of refusing (MUST: delete never takes the root)."""

import shutil

import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    path = tool_input.get("path")
    if tool_input.get("command") != "delete" or not isinstance(path, str):
        return None
    if path.rstrip("/") != "/memories":
        return None
    shutil.rmtree(MEMORIES)
    return {"content": "Successfully deleted {}".format(path), "is_error": False}


_proxy.serve(handle)
