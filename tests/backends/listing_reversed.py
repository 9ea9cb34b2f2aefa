"""Correct, in another order: the reference (`memspec serve`), except that a listing gives its
entries in reverse order (the root line still first, as the page's example has it). Neither
revision gives an order for a listing's lines, so this backend must pass `--strict` with one INFO
line: the order's own decision, `decide.listing-order`.
"""

import _proxy

HEADER = "Here're the files and directories"


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    text = answer["content"]
    if answer["is_error"] or not isinstance(text, str) or not text.startswith(HEADER):
        return answer
    header, root, *entries = text.split("\n")
    return dict(answer, content="\n".join([header, root, *reversed(entries)]))


# No state of its own: one process serves a worker's cases (reset goes to the reference).
_proxy.serve(handle, controls=True)
