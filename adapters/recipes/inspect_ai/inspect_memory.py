"""Recipe: inspect_ai's ``memory()`` tool, checked as inspect's agent loop runs it.

``inspect_ai.tool.memory()`` is an ``async`` tool function whose files live in the sample's
``Store`` (a ``MemoryStore`` model: a dict of files and a list of folders), not on disk. In an
eval, inspect's agent loop hands each tool call of the model to
``inspect_ai.model.execute_tools``, which checks the arguments against the tool's JSON schema,
calls the tool, and turns a ``ToolError`` (or a parsing error) into a ``ChatMessageTool`` with an
``error``; inspect's Anthropic provider sends that message to Claude as a ``tool_result`` whose
content is the error's message with ``is_error: true``, and otherwise the tool's text.

No model and no eval are needed: each memspec request becomes one ``ChatMessageAssistant`` with
that tool call, run through ``execute_tools`` with a ``Store`` of this object's own (what a
sample would have), and the reply is the resulting ``ChatMessageTool`` as the provider sends it.
``execute_tools`` also applies inspect's default tool-output limit (16 KiB), as in an eval.

    memspec check --not-on-folder --python adapters/recipes/inspect_ai/inspect_memory.py:InspectMemoryTool
"""

from __future__ import annotations

import itertools
from typing import Any

from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, execute_tools
from inspect_ai.tool import ToolCall, memory
# Private module: what inspect itself calls to give each sample (and subtask) its store; 0.3.285.
from inspect_ai.util._store import Store, init_subtask_store

try:
    from anthropic.lib.tools import ToolError
except ImportError:  # pragma: no cover - inspect_ai's Anthropic provider needs anthropic

    class ToolError(Exception):  # type: ignore[no-redef]
        """Stand-in for ``anthropic.lib.tools.ToolError``, matched by name by memspec's adapter."""

        def __init__(self, content: str) -> None:
            super().__init__(content)
            self.content = content


class InspectMemoryTool:
    """inspect_ai's ``memory()`` tool behind ``execute_tools``, with a sample store of its own.

    ``await call(input)`` returns the text Claude would read, and raises ``ToolError`` with the
    error message when inspect reports the call as an error (the ``tool_result``'s ``is_error``).
    """

    def __init__(self) -> None:
        self.tool = memory()
        self.store = Store()
        self.ids = itertools.count(1)

    def clear_all_memory(self) -> str:
        """A new sample store: no files (memspec's `reset`, between cases)."""
        self.store = Store()
        return "All memory cleared"

    async def call(self, tool_input: Any) -> Any:
        """One tool call of the model through inspect's ``execute_tools``."""
        # The sample's store is a context variable; this task sees our store (and only this task:
        # asyncio runs each call in a copy of the context).
        init_subtask_store(self.store)
        if not isinstance(tool_input, dict):
            # inspect's providers parse a tool call's input into a dict before building a
            # ToolCall; anything else never reaches the tool. The wording is this recipe's own.
            raise ToolError(f"Error: tool input must be a JSON object, got {type(tool_input).__name__}")
        call = ToolCall(id=f"toolu_{next(self.ids):08d}", function="memory", arguments=tool_input)
        result = await execute_tools([ChatMessageAssistant(content="", tool_calls=[call])], [self.tool])
        (reply,) = [m for m in result.messages if isinstance(m, ChatMessageTool)]
        if reply.error is not None:
            # inspect_ai/model/_providers/anthropic.py: an error's message is the content, with
            # is_error set (and "error" when the message is empty, since the API needs content).
            raise ToolError(reply.error.message or reply.text or "error")
        return reply.text
