"""Broken: drops the `Error: ` prefix from every error the spec words with one
(the Python SDK helper's dialect)."""

import _proxy


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if answer["is_error"] and answer["content"].startswith("Error: "):
        answer["content"] = answer["content"][len("Error: "):]
    return answer


_proxy.serve(handle)
