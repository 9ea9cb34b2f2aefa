#!/usr/bin/env python3
"""Minimal protocol-v1 driver for the Python SDK's BetaLocalFilesystemMemoryTool.

Fallback for benches/run.py when adapters/python/memspec_adapter.py is not available. It does
what the SDK's tool runner does with a result (ToolError -> its content, is_error; any other
exception -> repr, is_error) and nothing else. `anthropic` is imported before the first request
is read, so import time never lands inside a measurement.

    python3 benches/py_driver.py --base BASE     (/memories maps to BASE/memories)
"""

import json
import sys

from anthropic.lib.tools import ToolError  # noqa: E402  (imported up front on purpose)
from anthropic.tools import BetaLocalFilesystemMemoryTool


def main() -> int:
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--base":
        sys.stderr.write("usage: py_driver.py --base BASE\n")
        return 2
    tool = BetaLocalFilesystemMemoryTool(base_path=args[1])
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        req = json.loads(raw)
        rid = req.get("id")
        if "control" in req:
            reply = {"id": rid, "ok": req["control"] in ("hello", "reset")}
            if req["control"] == "hello":
                reply.update(protocol=1, backend="BetaLocalFilesystemMemoryTool via benches/py_driver.py")
        else:
            try:
                reply = {"id": rid, "content": tool.call(req["input"]), "is_error": False}
            except ToolError as exc:
                reply = {"id": rid, "content": exc.content, "is_error": True}
            except Exception as exc:  # the runner sends repr(exc), cut to 4096 characters
                reply = {"id": rid, "content": repr(exc)[:4096], "is_error": True}
        out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
