"""Broken: a file ending with a newline is shown with one more, empty, numbered line
(`split("\n")` without dropping the empty last piece)."""

import re

import _proxy

NUMBER = re.compile(r"^ *(\d+)\t", re.MULTILINE)
MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    path = tool_input.get("path")
    if answer["is_error"] or not answer["content"].startswith("Here's the content of "):
        return answer
    with open(_proxy.host_path(MEMORIES, path), "rb") as f:
        data = f.read()
    numbers = [int(n) for n in NUMBER.findall(answer["content"])]
    if data.endswith(b"\n") and numbers and numbers[-1] == data.count(b"\n"):
        answer["content"] += "\n{:>6}\t".format(numbers[-1] + 1)
    return answer


_proxy.serve(handle)
