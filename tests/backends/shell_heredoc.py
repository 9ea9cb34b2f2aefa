"""Broken: create writes the file through a shell here-document, so a line `EOF` in `file_text`
ends the document and whatever follows it runs as shell commands (MUST confinement: a file is
made outside /memories).

How a real backend gets it: a handler that shells out (`subprocess.run(["sh", "-c", ...])`) to
make the parent folders and write the file in one go, with the here-document's delimiter quoted
(`<<'EOF'`), so `$(…)` and backticks are not expanded: the author guarded against expansion and
not against the delimiter itself. Every other command goes to the reference; the file it writes
holds exactly `file_text` whenever that text has no line `EOF`.

Shortest: create /memories/n.md with "a\\nEOF\\ntouch \\"$MEMSPEC_BASE/x\\"\\n"; `{base}/x` exists.
"""

import os
import subprocess

import _proxy

ROOT = "/memories"


def handle(reference, tool_input):
    if tool_input.get("command") != "create":
        return None
    path, text = tool_input.get("path"), tool_input.get("file_text")
    if not isinstance(path, str) or not isinstance(text, str) or "\0" in text:
        return None
    # The reference checks the path and makes the file (refusing links, traversal, a folder in
    # the way); the handler then writes the content its own way, through the shell.
    answer = reference.call(tool_input)
    if answer["is_error"]:
        return answer
    host = os.path.join(_proxy.memories_dir(), path[len(ROOT) + 1:])
    body = text if text.endswith("\n") else text + "\n"
    script = f"cat > \"$1\" <<'EOF'\n{body}EOF\n"
    if not text.endswith("\n"):
        script += "truncate -s -1 \"$1\"\n"
    # The script on stdin (`sh -s`): a large text would not fit in an argument.
    done = subprocess.run(["sh", "-s", "--", host], input=script, capture_output=True, text=True)
    if done.returncode != 0:
        return {"content": f"Error: could not write {path}", "is_error": True}
    return answer


_proxy.serve(handle, controls=True)
