"""Legal, not broken: takes `%` as a plain character in names. `create /memories/%2e%2e/pwned.txt`
makes a folder literally named `%2e%2e` inside the memories folder: nothing is decoded, so
nothing escapes. The page leaves the path grammar open (decide.path-grammar), so no command
(check, replay, fuzz) may call it a traversal."""

import os

import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    path = tool_input.get("path")
    if tool_input.get("command") != "create" or not isinstance(path, str):
        return None
    if "%" not in path or not path.startswith("/memories/"):
        return None
    parts = path[len("/memories/"):].split("/")
    if any(part in ("", ".", "..") or "\\" in part or "\0" in part for part in parts):
        return None
    host = os.path.join(MEMORIES, *parts)
    if os.path.lexists(host):
        return None
    os.makedirs(os.path.dirname(host), exist_ok=True)
    with open(host, "w", encoding="utf-8", newline="") as f:
        f.write(tool_input.get("file_text", ""))
    return {"content": "File created successfully at: {}".format(path), "is_error": False}


_proxy.serve(handle)
