"""Broken: joins the path onto the memories folder naively and normalises it, so
`/memories/../canary.txt` names a file beside the memories folder. It checks only that the path
starts with `/memories/`."""

import os

import _naive
import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    path = tool_input.get("path")
    if not isinstance(path, str) or not path.startswith("/memories/") or ".." not in path.split("/"):
        return None
    return _naive.run(tool_input, os.path.normpath(_proxy.host_path(MEMORIES, path)))


_proxy.serve(handle)
