"""Broken: create answers `File created at: {path}` instead of the spec's
`File created successfully at: {path}` (a SHOULD string difference)."""

import _proxy


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    prefix = "File created successfully at: "
    if tool_input.get("command") == "create" and answer["content"].startswith(prefix):
        answer["content"] = "File created at: " + answer["content"][len(prefix):]
    return answer


_proxy.serve(handle)
