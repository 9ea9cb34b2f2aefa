"""Not one of the broken-in-one-way backends: a mix of breakages so that one small run shows
every outcome in the report snapshots (tests/it/check/reports.rs).

- create errors lose their `Error: ` prefix (warn, a named dialect);
- a file without a final newline is numbered with a space instead of a tab (warn, a diff);
- a file with a final newline gets a phantom empty numbered line (info);
- view errors are not flagged is_error (fail);
- str_replace crashes (error).
"""

import re
import sys

import _proxy

MEMORIES = _proxy.memories_dir()
NUMBER_TAB = re.compile(r"^( *\d+)\t", re.MULTILINE)


def handle(reference, tool_input):
    command = tool_input.get("command")
    if command == "str_replace":
        sys.stderr.write("mix: str_replace is not implemented\n")
        sys.exit(2)
    answer = reference.call(tool_input)
    if command == "create" and answer["is_error"]:
        answer["content"] = answer["content"].replace("Error: ", "", 1)
    if command == "view" and answer["is_error"]:
        answer["is_error"] = False
    if command == "view" and answer["content"].startswith("Here's the content of "):
        with open(_proxy.host_path(MEMORIES, tool_input["path"]), "rb") as f:
            data = f.read()
        if data.endswith(b"\n"):
            answer["content"] += "\n{:>6}\t".format(data.count(b"\n") + 1)
        else:
            answer["content"] = NUMBER_TAB.sub(r"\1 ", answer["content"])
    return answer


_proxy.serve(handle)
