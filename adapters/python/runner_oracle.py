#!/usr/bin/env python3
"""What the anthropic SDK's own tool runner sends back, for checking the adapter against it.

Reads one tool input per line on stdin (JSON). For each, a `client.beta.messages.tool_runner` is
run for one turn against a mocked HTTP transport whose only reply is an assistant message with a
`memory` tool_use carrying that input; the `tool_result` the runner builds
(`generate_tool_call_response()`) is printed as `{"content": ..., "is_error": ...}`. Nothing leaves
the machine. The same tool instance serves every line, so state carries over as in the adapter.

    python runner_oracle.py TARGET --base DIR    (TARGET as for memspec_adapter.py)

Needs `anthropic` (and its HTTP client, `httpx2` in 2.x); used by adapters/selftest.py --crosscheck.
"""

from __future__ import annotations

import json
import os
import sys

import httpx2 as httpx  # anthropic 2.x ships its HTTP client as `httpx2`
from anthropic import Anthropic, AsyncAnthropic

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memspec_adapter  # noqa: E402  (target loading only; the runner does the rest)


def _assistant_reply(tool_input: object, n: int) -> dict:
    return {
        "id": f"msg_oracle_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-oracle",
        "content": [{"type": "tool_use", "id": f"toolu_oracle_{n}", "name": "memory", "input": tool_input}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _as_sdk_tool(handler: "memspec_adapter.FunctionTool") -> object:
    """An input-shape handler function as an application hands it to the runner: a memory tool
    whose call(input) is the function (its command methods never run)."""
    from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool

    if handler.shape != "input":
        raise SystemExit("runner_oracle.py: a tool_use-shape handler builds its tool_result itself; no runner runs it")
    base = BetaAsyncAbstractMemoryTool if handler.is_async else BetaAbstractMemoryTool
    fn = handler.fn

    def unused(self, command):
        raise NotImplementedError

    def call(self, tool_input):
        return fn(tool_input)

    methods = {name: unused for name in base.__abstractmethods__}
    return type("HandlerAsMemoryTool", (base,), {**methods, "call": call})()


def main() -> int:
    args = memspec_adapter.parse_args(sys.argv[1:])
    base, memories = memspec_adapter.resolve_paths(args)
    backend = memspec_adapter.Backend(args.target, base, memories, memspec_adapter.resolve_shape(args))
    tool = backend.tool
    if isinstance(tool, memspec_adapter.FunctionTool):
        tool = _as_sdk_tool(tool)
    pending: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        # ASCII-escaped JSON, so that a lone surrogate in an input survives as the API would send it.
        body = json.dumps(pending.pop(0)).encode("ascii")
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    transport = httpx.MockTransport(handler)
    common = dict(api_key="sk-oracle-not-used", max_retries=0)
    sync_client = Anthropic(http_client=httpx.Client(transport=transport), **common)
    async_client = AsyncAnthropic(http_client=httpx.AsyncClient(transport=transport), **common)
    def params() -> dict:
        return dict(model="claude-oracle", max_tokens=16, messages=[{"role": "user", "content": "go"}], tools=[tool])

    async def one_async() -> dict:
        runner = async_client.beta.messages.tool_runner(**params())
        async for _message in runner:
            return await runner.generate_tool_call_response()
        raise RuntimeError("runner produced no message")

    def one_sync() -> dict:
        runner = sync_client.beta.messages.tool_runner(**params())
        for _message in runner:
            return runner.generate_tool_call_response()
        raise RuntimeError("runner produced no message")

    loop = backend.loop
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        pending.append(_assistant_reply(json.loads(line), n))
        response = loop.run_until_complete(one_async()) if backend.is_async else one_sync()
        (block,) = response["content"]
        out = {"content": block.get("content"), "is_error": bool(block.get("is_error", False))}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
