"""A view format the witness does not know: a file's view is its bare text, with no header and
no line numbers (`view_range` still honoured), the way a handler that returns
`open(path).read()` answers. Every byte is stored right; only the view's format differs from the
spec's (SHOULD `view.file.line-format`). Nothing here may read as a lost memory.
"""

import re

import _proxy

NUMBERED = re.compile(r"^ *\d+\t(.*)$")


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    text = answer["content"]
    if answer["is_error"] or not isinstance(text, str) or not text.startswith("Here's the content of "):
        return answer
    lines = text.split("\n")[1:]
    bare = [m.group(1) for m in (NUMBERED.match(line) for line in lines) if m]
    answer["content"] = "".join(line + "\n" for line in bare)
    return answer


# No state of its own: one process serves a worker's cases (reset goes to the reference).
_proxy.serve(handle, controls=True)
