"""Shape `input`: a plain function `handle(tool_input) -> str`, over a folder.

    memspec check --strict --python adapters/python/examples/handle_input.py:handle
    memspec check --strict --backend 'python3 adapters/python/memspec_adapter.py adapters/python/examples/handle_input.py:handle --base {base}'

The adapter finds the shape from the signature: the first parameter is not named tool_use/block
(nor annotated as a tool_use block), so `handle` gets the tool input dict. It returns the result
text; an error is raised as the SDK's `ToolError`, whose text the runner sends as it is with
is_error true (any other exception would reach Claude as its repr).

The folder is MEMSPEC_MEMORIES (set by memspec and by the adapter), else ./memories; `make` is
the factory form, which the adapter calls with the folder instead.

Planted bug: MEMSPEC_EXAMPLE_BUG=replace-all (str_replace replaces every occurrence).
"""

import os

from folder_memory import CommandError, FolderMemory

try:
    from anthropic.lib.tools import ToolError
except ImportError:  # without the SDK: the adapter knows a ToolError by its name and `.content`

    class ToolError(Exception):
        def __init__(self, content):
            super().__init__(content)
            self.content = content


memory = FolderMemory(os.environ.get("MEMSPEC_MEMORIES") or "memories")


def handle(tool_input: dict) -> str:
    return run(memory, tool_input)


def run(store: FolderMemory, tool_input: dict) -> str:
    try:
        return store.run(tool_input)
    except CommandError as exc:
        raise ToolError(exc.text) from None


def make(memories: str):
    """The factory form (`handle_input.py:make`): called with the folder, returns the handler."""
    store = FolderMemory(memories)
    return lambda tool_input: run(store, tool_input)
