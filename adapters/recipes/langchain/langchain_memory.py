"""Recipe: LangChain's Claude memory middleware, checked as the agent runs it.

``langchain-anthropic`` ships two middlewares that give a LangChain agent (``create_agent``)
Claude's memory tool: ``FilesystemClaudeMemoryMiddleware(root_path=…)`` keeps memories as files
under ``root_path`` (``/memories/x`` is ``<root_path>/memories/x``), and
``StateClaudeMemoryMiddleware()`` keeps them in the LangGraph state of the conversation thread.
Each exposes its tool as ``middleware.tools[0]`` (named ``memory``); the agent's tool node runs
it and sends the resulting ``ToolMessage`` to Claude as a ``tool_result`` whose ``is_error`` is
``status == "error"`` (``langchain_anthropic.chat_models``).

No model is needed to check it: each memspec request becomes one turn of a one-node LangGraph
graph, an ``AIMessage`` carrying the tool call in, LangGraph's own ``ToolNode`` (the node
``create_agent`` builds) running the middleware's tool, and the thread's memory files carried
from one call to the next, as the agent's checkpointer carries them between turns. The reply is
the ``ToolMessage``'s content and status. An exception that the tool node lets through (LangGraph's
default handler only turns argument validation errors into messages) would end the agent's run;
here it becomes an error reply with the exception's ``repr``, as memspec's adapter does for any
tool.

    memspec check --python adapters/recipes/langchain/langchain_memory.py:filesystem_memory
    memspec check --not-on-folder --python adapters/recipes/langchain/langchain_memory.py:state_memory
"""

from __future__ import annotations

import itertools
from typing import Any

from langchain_anthropic.middleware import FilesystemClaudeMemoryMiddleware, StateClaudeMemoryMiddleware
from langchain_anthropic.middleware.anthropic_tools import AnthropicToolsState
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

try:
    from anthropic.lib.tools import ToolError
except ImportError:  # pragma: no cover - langchain-anthropic depends on anthropic

    class ToolError(Exception):  # type: ignore[no-redef]
        """Stand-in for ``anthropic.lib.tools.ToolError``, matched by name by memspec's adapter."""

        def __init__(self, content: str) -> None:
            super().__init__(content)
            self.content = content


class MiddlewareMemoryTool:
    """Runs a LangChain memory middleware's tool the way a LangChain agent does, one call per turn.

    ``call(input)`` returns what Claude would read, and raises ``ToolError`` with it when the
    ``ToolMessage`` has ``status="error"`` (the ``tool_result``'s ``is_error``).
    """

    def __init__(self, middleware: Any) -> None:
        self.middleware = middleware
        (tool,) = middleware.tools
        graph = StateGraph(AnthropicToolsState)
        graph.add_node("tools", ToolNode([tool]))
        graph.add_edge(START, "tools")
        graph.add_edge("tools", END)
        self.app = graph.compile()
        self.name = tool.name
        self.ids = itertools.count(1)
        # The thread's state between turns, as the agent's checkpointer would carry it: only the
        # memory files (the State middleware's store; the Filesystem one keeps none). The
        # conversation's messages are left out: the tool never reads them, and keeping every
        # message of a long case in every checkpoint grows without bound.
        self.files: dict = {}

    def clear_all_memory(self) -> str:
        """An empty thread state (memspec's `reset`, between cases; memspec empties the folder)."""
        self.files = {}
        return "All memory cleared"

    def call(self, tool_input: Any) -> Any:
        """One agent turn: Claude's tool call in, the tool's ``ToolMessage`` out."""
        call_id = f"toolu_{next(self.ids):08d}"
        # A tool call's args are a JSON object in every model response; anything else is passed
        # on as it came, so the tool node (not this wrapper) decides what happens to it.
        request = AIMessage(
            content="",
            tool_calls=[{"name": self.name, "args": tool_input, "id": call_id, "type": "tool_call"}],
        )
        state = self.app.invoke({"messages": [request], "memory_files": self.files})
        self.files = state.get("memory_files", {})
        reply = state["messages"][-1]
        if getattr(reply, "tool_call_id", None) != call_id:
            raise RuntimeError(f"the tool node answered {reply!r}, not a ToolMessage for {call_id}")
        if reply.status == "error":
            raise ToolError(reply.content)
        return reply.content


def filesystem_memory(base: str) -> MiddlewareMemoryTool:
    """``FilesystemClaudeMemoryMiddleware`` with ``root_path`` the folder that holds ``memories/``."""
    return MiddlewareMemoryTool(FilesystemClaudeMemoryMiddleware(root_path=base))


def state_memory() -> MiddlewareMemoryTool:
    """``StateClaudeMemoryMiddleware``: memories in the thread's state, none on disk."""
    return MiddlewareMemoryTool(StateClaudeMemoryMiddleware())
