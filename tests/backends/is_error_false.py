"""Broken: never sets is_error, so errors look like successes (MUST)."""

import _proxy


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    answer["is_error"] = False
    return answer


_proxy.serve(handle)
