"""Broken: no line limit: a file of a million lines or more is viewed whole instead of refused.

Its diff against the spec's one-line refusal is a million lines long, which is what the reports
must cap."""

import os

import _proxy


def handle(reference, tool_input):
    if tool_input.get("command") != "view":
        return None
    path = tool_input.get("path", "")
    host = _proxy.host_path(_proxy.memories_dir(), path)
    if not os.path.isfile(host):
        return None
    with open(host, encoding="utf-8") as f:
        content = f.read()
    if content.count("\n") < 1000000:
        return None
    return {"content": _proxy.numbered(path, content), "is_error": False}


_proxy.serve(handle)
