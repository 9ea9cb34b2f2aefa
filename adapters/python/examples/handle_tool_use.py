"""Shape `tool_use`: `handle(tool_use) -> tool_result`, over a folder.

    memspec check --strict --python adapters/python/examples/handle_tool_use.py:handle
    memspec check --strict --backend 'python3 adapters/python/memspec_adapter.py adapters/python/examples/handle_tool_use.py:handle --base {base}'

The adapter finds the shape from the first parameter's name, `tool_use` (or `block`, or an
annotation naming a ToolUse type; `--shape tool_use` / MEMSPEC_SHAPE=tool_use force it). It
passes the whole block, {"type": "tool_use", "id", "name": "memory", "input"}, and sends the
content and is_error of the tool_result returned, whose tool_use_id must be the block's id.

Planted bug: MEMSPEC_EXAMPLE_BUG=delete-root (delete of /memories itself is allowed).
"""

import os

from folder_memory import CommandError, FolderMemory

memory = FolderMemory(os.environ.get("MEMSPEC_MEMORIES") or "memories")


def handle(tool_use: dict) -> dict:
    try:
        text, is_error = memory.run(tool_use["input"]), False
    except CommandError as exc:
        text, is_error = exc.text, True
    return {"type": "tool_result", "tool_use_id": tool_use["id"], "content": text, "is_error": is_error}
