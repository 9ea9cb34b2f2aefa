"""Broken: checks `path.startswith("/memories")` without the slash, so `/memoriesX/canary.txt`
is accepted and mapped to the sibling folder `memoriesX` beside the memories folder."""

import _naive
import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    path = tool_input.get("path")
    if not isinstance(path, str) or not path.startswith("/memories"):
        return None
    if path == "/memories" or path.startswith("/memories/"):
        return None
    return _naive.run(tool_input, _proxy.host_path(MEMORIES, path))


_proxy.serve(handle)
