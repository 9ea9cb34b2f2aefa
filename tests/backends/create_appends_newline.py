"""Broken: create writes one extra `\n` after `file_text` (MUST: create writes exactly file_text).

One fault that every case with a setup `create` meets: the report must name it once, as a root
cause with a count, not as failures under unrelated rules.
"""

import _proxy


def handle(reference, tool_input):
    if isinstance(tool_input, dict) and tool_input.get("command") == "create" and isinstance(
        tool_input.get("file_text"), str
    ):
        tool_input = dict(tool_input, file_text=tool_input["file_text"] + "\n")
    return reference.call(tool_input)


# No state of its own: one process serves a worker's cases (reset goes to the reference).
_proxy.serve(handle, controls=True)
