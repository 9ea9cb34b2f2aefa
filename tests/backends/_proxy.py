"""Shared plumbing of the deliberately broken backends in this folder.

Each broken backend is a real program speaking protocol v1 on stdin/stdout and is broken in
exactly one way. Most wrap the reference backend: they start `memspec serve {memories}`, forward
every request to it and change one thing on the way in or out. The memspec binary is taken from
the second argument or from the MEMSPEC_BIN environment variable.

    python3 tests/backends/NAME.py {memories} [path/to/memspec]

Only the Python standard library is used.
"""

import json
import os
import subprocess
import sys


def memories_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    return os.environ["MEMSPEC_MEMORIES"]


def memspec_bin():
    if len(sys.argv) > 2:
        return sys.argv[2]
    return os.environ.get("MEMSPEC_BIN", "memspec")


class Reference:
    """The reference backend (`memspec serve`) as a subprocess, called one input at a time."""

    def __init__(self, memories):
        self.memories = memories
        self.child = subprocess.Popen(
            [memspec_bin(), "serve", memories],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            encoding="utf-8",
        )
        self.next_id = 0

    def call(self, tool_input):
        """Returns {"content": str, "is_error": bool} for one tool input."""
        self.next_id += 1
        self.child.stdin.write(json.dumps({"id": self.next_id, "input": tool_input}) + "\n")
        self.child.stdin.flush()
        reply = json.loads(self.child.stdout.readline())
        return {"content": reply["content"], "is_error": reply.get("is_error", False)}

    def control(self, request):
        """The reference's reply to a control request (`reset`, `hello`), with its id."""
        self.next_id += 1
        self.child.stdin.write(json.dumps({"id": self.next_id, "control": request.get("control")}) + "\n")
        self.child.stdin.flush()
        reply = json.loads(self.child.stdout.readline())
        reply["id"] = request.get("id")
        return reply


def host_path(memories, path):
    """The naive mapping many hand-written backends use: strip `/memories`, join the rest.

    No containment check at all; callers decide which inputs reach it."""
    rest = path[len("/memories"):]
    return memories + rest


def requests():
    """Yields each request object read from stdin."""
    for line in sys.stdin:
        if line.strip():
            yield json.loads(line)


def reply(request_id, content, is_error=False):
    send_line(json.dumps({"id": request_id, "content": content, "is_error": is_error}))


def refuse_control(request):
    """Controls (`reset`, `hello`) are optional; these backends support none, so the harness
    starts a fresh process for every case."""
    send_line(json.dumps({"id": request.get("id"), "ok": False}))


def send_line(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def numbered(path, content):
    """A file view in the spec's format (what the reference prints), built by the wrapper."""
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    out = "Here's the content of {} with line numbers:".format(path)
    for n, line in enumerate(lines, start=1):
        out += "\n{:>6}\t{}".format(n, line)
    return out


def human_size(n):
    if n < 1024:
        return "{}B".format(n)
    value = n / 1024.0
    for unit in "KMGTPE":
        if value < 1023.95 or unit == "E":
            return "{:.1f}{}".format(value, unit)
        value /= 1024.0


def serve(handle, controls=False):
    """Runs the wrapper loop: `handle(reference, tool_input)` returns a reply dict
    ({"content", "is_error"}) to send instead of the reference's, or None to forward.

    With `controls`, `reset` and `hello` go to the reference, so one process serves a worker's
    cases: for a wrapper that keeps no state of its own, whose whole-suite run then takes 13 s
    instead of 73 s (614 starts of Python and of `memspec serve`). Without, the harness starts a
    fresh process for every case."""
    reference = Reference(memories_dir())
    for request in requests():
        if "input" not in request:
            if controls:
                send_line(json.dumps(reference.control(request)))
            else:
                refuse_control(request)
            continue
        tool_input = request["input"]
        answer = None
        if isinstance(tool_input, dict):
            answer = handle(reference, tool_input)
        if answer is None:
            answer = reference.call(tool_input)
        reply(request["id"], answer["content"], answer["is_error"])
