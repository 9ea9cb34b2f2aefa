"""Broken: str_replace replaces every occurrence of old_str instead of refusing when there is
more than one (MUST: exactly one occurrence)."""

import _proxy

MEMORIES = _proxy.memories_dir()


def handle(reference, tool_input):
    answer = reference.call(tool_input)
    if tool_input.get("command") == "str_replace" and "Multiple occurrences" in answer["content"]:
        path = _proxy.host_path(MEMORIES, tool_input["path"])
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        text = text.replace(tool_input["old_str"], tool_input.get("new_str") or "")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        answer = {"content": "The memory file has been edited.", "is_error": False}
    return answer


_proxy.serve(handle)
