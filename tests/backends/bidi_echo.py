"""Broken: every answer ends with a right-to-left override, a zero-width space and a first-strong
isolate (U+202E, U+200B, U+2068), as a hostile or careless backend could send them. A report
that printed them raw would reorder or hide what a reader sees; every format must show them
escaped."""

import _proxy


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if isinstance(answer["content"], str):
        answer["content"] += " \u202etxt.exe\u200b\u2068"
    return answer


_proxy.serve(handle)
