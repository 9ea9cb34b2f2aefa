"""Broken: rename replaces an existing destination instead of refusing
(MUST: rename never overwrites)."""

import _proxy


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if tool_input.get("command") == "rename" and answer["content"].endswith(" already exists"):
        reference.call({"command": "delete", "path": tool_input["new_path"]})
        answer = reference.call(tool_input)
    return answer


_proxy.serve(handle)
