"""Answers in LangChain's memory-middleware wording (langchain-anthropic's
StateClaudeMemoryMiddleware): a file view is its lines as `N|line`, with no header and no padding,
and create says `File created: {path}`. Everything else, flags and effects included, is the
reference's (the `N|line` form still reads back: the witness accepts `|` after a line number).

The report must name the LangChain lineage once, with how many findings it explains, and keep
every finding graded as it is.
"""

import re

import _proxy

FILE_HEADER = "Here's the content of "
NUMBERED = re.compile(r"\A *(\d+)\t(.*)\Z", re.S)
CREATED = re.compile(r"\AFile created successfully at: (.*)\Z")


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    text = answer["content"]
    if not answer["is_error"] and text.startswith(FILE_HEADER):
        lines = text.split("\n")[1:]
        text = "\n".join(NUMBERED.sub(r"\1|\2", line) for line in lines)
    text = CREATED.sub(r"File created: \1", text)
    answer["content"] = text
    return answer


# No state of its own: one process serves a worker's cases (reset goes to the reference).
_proxy.serve(handle, controls=True)
