"""Broken: create replaces an existing file instead of refusing (MUST: create never overwrites)."""

import _proxy


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if tool_input.get("command") == "create" and answer["content"].endswith(" already exists"):
        reference.call({"command": "delete", "path": tool_input["path"]})
        answer = reference.call(tool_input)
    return answer


_proxy.serve(handle)
