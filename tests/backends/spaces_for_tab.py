"""Broken: file views separate the line number from the line with a space, not a tab."""

import re

import _proxy

NUMBER_TAB = re.compile(r"^( *\d+)\t", re.MULTILINE)


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if not answer["is_error"] and answer["content"].startswith("Here's the content of "):
        answer["content"] = NUMBER_TAB.sub(r"\1 ", answer["content"])
    return answer


_proxy.serve(handle)
