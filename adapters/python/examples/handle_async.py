"""Shape `input`, async: `async def handle(tool_input)`, over a folder.

    memspec check --strict --python adapters/python/examples/handle_async.py:handle
    memspec check --strict --backend 'python3 adapters/python/memspec_adapter.py adapters/python/examples/handle_async.py:handle --base {base}'

The adapter awaits it on one event loop. It shows the two other returns of the input shape: a
list of content blocks on success, and a tool_result-like mapping `{"content": ..., "is_error":
True}` for an error, which is sent as it says (no exception needed).

Planted bug: MEMSPEC_EXAMPLE_BUG=view-range-off-by-one (view_range read as 0-indexed).
"""

import asyncio
import os

from folder_memory import CommandError, FolderMemory

memory = FolderMemory(os.environ.get("MEMSPEC_MEMORIES") or "memories")


async def handle(tool_input: dict):
    try:
        text = await asyncio.to_thread(memory.run, tool_input)  # file I/O off the event loop
    except CommandError as exc:
        return {"content": exc.text, "is_error": True}
    return [{"type": "text", "text": text}]
