"""Broken: `view_range` `[start, end]` shows one line too many (lines start..end+1, as an
exclusive-end slice taken one past the end would); every other view is the reference's."""

import _proxy


def handle(reference, tool_input):
    if tool_input.get("command") != "view":
        return None
    view_range = tool_input.get("view_range")
    if not (isinstance(view_range, list) and len(view_range) == 2):
        return None
    start, end = view_range
    if not (isinstance(start, int) and isinstance(end, int)) or end < start:
        return None
    wider = dict(tool_input, view_range=[start, end + 1])
    answer = reference.call(wider)
    if answer["is_error"]:
        return None  # past the end: the reference answers the range as asked
    return answer


_proxy.serve(handle)
