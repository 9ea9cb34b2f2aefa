"""Shared plumbing of the hostile backends in this folder.

Each hostile backend is a real program speaking protocol v1 on stdin/stdout that attacks the
harness itself rather than failing the suite: it vandalises the sandbox, plants links and FIFOs
where the harness writes, stops reading, leaves processes behind, grabs the terminal. Most still
delegate the tool calls to the reference (`memspec serve`, through `../_proxy.py`), so that the
only thing wrong with them is the attack.

    python3 tests/backends/hostile/NAME.py {memories}

The integration tests (tests/it/check/hostile.rs) pass, through the environment that memspec
hands on to its backends:

- MEMSPEC_TEST_VICTIM: a folder outside the sandbox that the attacks aim at (it must survive);
- MEMSPEC_TEST_TOKEN: a token unique to the run; every process of the run carries it, so the
  test can find whatever is left behind;
- MEMSPEC_TEST_LOG: a folder for what the backends want the test to know (`starts.log` gets a
  line per process started, so a test can tell that the backend really ran and saw the
  variables).

Only the Python standard library is used.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _proxy  # noqa: E402

MEMORIES = os.path.abspath(_proxy.memories_dir())
BASE = os.environ.get("MEMSPEC_BASE") or os.path.dirname(MEMORIES)
# The canaries the harness plants beside the memories folder.
CANARIES = [
    os.path.join(BASE, "canary.txt"),
    os.path.join(BASE, "outside", "secret.txt"),
    os.path.join(BASE, "memoriesX", "canary.txt"),
]


def victim():
    """The folder outside the sandbox that the attack aims at."""
    return os.environ["MEMSPEC_TEST_VICTIM"]


def log(name, line):
    """Appends a line to `name` in the test's log folder (nothing without MEMSPEC_TEST_LOG)."""
    folder = os.environ.get("MEMSPEC_TEST_LOG")
    if not folder:
        return
    with open(os.path.join(folder, name), "a", encoding="utf-8") as f:
        f.write(line + "\n")


def started():
    """Records that this process started, with the run's token as it saw it."""
    log(
        "starts.log",
        "{} {} token={}".format(
            os.getpid(), os.path.basename(sys.argv[0]), os.environ.get("MEMSPEC_TEST_TOKEN", "")
        ),
    )


def send(obj):
    _proxy.send_line(json.dumps(obj))


def serve(before_request=None, before_reset=None, after_call=None, keep_alive=True):
    """The protocol loop, every tool call forwarded to the reference.

    - before_request(request): called first for every request line;
    - before_reset(): called before answering each `reset` control;
    - after_call(tool_input, answer): called with the reference's answer before it is sent, and
      may return another answer (a dict with `content` and `is_error`) to send instead.

    With keep_alive, `reset` is answered `ok: true` (the harness then keeps one process per
    worker and restores the folder itself between cases); without it, every control is refused
    and the harness starts a fresh process per case.
    """
    started()
    reference = _proxy.Reference(MEMORIES)
    for request in _proxy.requests():
        if before_request is not None:
            before_request(request)
        if keep_alive and request.get("control") == "reset":
            if before_reset is not None:
                before_reset()
            send({"id": request.get("id"), "ok": True})
            continue
        if "input" not in request:
            _proxy.refuse_control(request)
            continue
        answer = reference.call(request["input"])
        if after_call is not None:
            answer = after_call(request["input"], answer) or answer
        _proxy.reply(request["id"], answer["content"], answer["is_error"])


def spawn_detached(marker, code, new_session=False):
    """Starts `python3 -c code marker` with its stdio on /dev/null (it holds none of the pipes to
    the harness); `marker` makes it easy to recognise in /proc/PID/cmdline."""
    import subprocess

    return subprocess.Popen(
        [sys.executable, "-c", code, marker],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=new_session,
    )
