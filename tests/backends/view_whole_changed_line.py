"""Broken: a view shows the whole file, however long, and changes one line of it.

A file view is answered in the spec's numbered format without the reference's truncation, with
line 500,000 (or the line given by MEMSPEC_CHANGED_LINE) ending in " (changed)". Everything
else goes to the reference. The replay TUI's tmux test records the whole view of a
999,999-line file as a golden answer and walks to this one changed line.
"""

import os

import _proxy

CHANGED = int(os.environ.get("MEMSPEC_CHANGED_LINE", "500000"))


def handle(reference, tool_input):
    if tool_input.get("command") != "view" or tool_input.get("view_range"):
        return None
    path = tool_input.get("path", "")
    host = _proxy.host_path(_proxy.memories_dir(), path)
    if not os.path.isfile(host):
        return None
    with open(host, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if len(lines) >= CHANGED:
        lines[CHANGED - 1] += " (changed)"
    return {"content": _proxy.numbered(path, "\n".join(lines)), "is_error": False}


_proxy.serve(handle)
