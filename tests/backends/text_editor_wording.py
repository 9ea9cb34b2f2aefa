"""Answers in the text-editor tool's wording (the lineage of computer-use-demo's edit.py, copied by
memory backends such as inspect_ai's): a file view opens with ``Here's the result of running `cat -n`
on {path}:``, a listing with ``Here's the files and directories …, excluding hidden items:``, and
create on an existing file says ``File already exists at: {path}. Cannot overwrite files using
command `create`.``. Everything else, flags and effects included, is the reference's.

The report must name the text-editor lineage once, with how many findings it explains, and keep
every finding graded as it is (SHOULD: the spec's exact strings).
"""

import re

import _proxy

FILE_HEADER = re.compile(r"\AHere's the content of (.*?) with line numbers:(\n|\Z)")
DIR_HEADER = re.compile(
    r"\AHere're the files and directories up to 2 levels deep in (.*?), "
    r"excluding hidden items and node_modules:(\n|\Z)"
)
EXISTS = re.compile(r"\AError: File (.*) already exists\Z")


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    text = answer["content"]
    text = FILE_HEADER.sub(lambda m: "Here's the result of running `cat -n` on {}:{}".format(m.group(1), m.group(2)), text)
    text = DIR_HEADER.sub(
        lambda m: "Here's the files and directories up to 2 levels deep in {}, excluding hidden items:{}".format(
            m.group(1), m.group(2)
        ),
        text,
    )
    text = EXISTS.sub(
        lambda m: "File already exists at: {}. Cannot overwrite files using command `create`.".format(m.group(1)),
        text,
    )
    answer["content"] = text
    return answer


# No state of its own: one process serves a worker's cases (reset goes to the reference).
_proxy.serve(handle, controls=True)
