"""Broken: names the host location of the memories folder in every error, as the TypeScript
helper's ENOENT messages do (`Error: ENOENT: no such file or directory, open '/abs/…/memories/x'`)."""

import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if answer["is_error"]:
        answer["content"] = answer["content"].replace("/memories", MEMORIES)
    return answer


_proxy.serve(handle)
