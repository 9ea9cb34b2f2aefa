#!/usr/bin/env python3
"""Drive memspec adapters by hand, without the Rust harness (standard library only).

    python3 adapters/selftest.py                 # every built-in configuration
    python3 adapters/selftest.py py-sync node-fs # some of them (see --list)
    python3 adapters/selftest.py --crosscheck    # also replay the tool calls through the SDKs' own
                                                 # tool runners (mocked HTTP) and diff byte for byte
    python3 adapters/selftest.py -- node adapters/node/memspec-adapter.mjs my.mjs:tool --base {base}

Each configuration gets a fresh temporary base folder (with memories/ inside), receives the same
short session (hello, view root, create, view file, create again, str_replace, a malformed input,
an unknown command, reset, view after reset) and its replies are printed. Built-in configurations
also carry a few expectations: what the SDK helpers answer, as recorded in baselines/ and in the
python_sdk/typescript_sdk fields of spec/decisions.json; a miss is reported and makes the exit
status 1. Python configurations use .ci/.venv/bin/python when it exists
(run .ci/install-sdks first).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PY = os.path.join(ROOT, ".ci", ".venv", "bin", "python")
PY = VENV_PY if os.path.exists(VENV_PY) else sys.executable
PY_ADAPTER = os.path.join(ROOT, "adapters", "python", "memspec_adapter.py")
PY_ORACLE = os.path.join(ROOT, "adapters", "python", "runner_oracle.py")
NODE_ADAPTER = os.path.join(ROOT, "adapters", "node", "memspec-adapter.mjs")
NODE_ORACLE = os.path.join(ROOT, "adapters", "node", "runner-oracle.mjs")
DICT_EXAMPLE = os.path.join(ROOT, "adapters", "python", "examples", "dict_backend.py")
MAP_EXAMPLE = os.path.join(ROOT, "adapters", "node", "examples", "map-backend.mjs")
# Handler-function examples (one per shape), over a folder.
PY_EXAMPLES = os.path.join(ROOT, "adapters", "python", "examples")
NODE_EXAMPLES = os.path.join(ROOT, "adapters", "node", "examples")

FIVE_LINES = "one\ntwo\nthree\nfour\nfive\n"
REQUESTS: List[Dict[str, Any]] = [
    {"control": "hello"},
    {"input": {"command": "view", "path": "/memories"}},
    {"input": {"command": "create", "path": "/memories/notes.txt", "file_text": FIVE_LINES}},
    {"input": {"command": "view", "path": "/memories/notes.txt"}},
    {"input": {"command": "create", "path": "/memories/notes.txt", "file_text": "again"}},
    {"input": {"command": "str_replace", "path": "/memories/notes.txt", "old_str": "three", "new_str": "THREE"}},
    {"input": {"command": "view", "path": "/memories"}},
    {"input": {"command": "view"}},  # malformed: no path
    {"input": {"command": "frobnicate", "path": "/memories"}},
    {"input": "not an object"},
    {"control": "reset"},
    {"input": {"command": "view", "path": "/memories/notes.txt"}},
    {"control": "bogus"},
]
# More tool inputs, for --crosscheck only: error paths and malformed input, where a runner's
# wrapping matters most. (Some TS errors embed absolute host paths, so the adapter and the runner
# are run in the same folder, one after the other.)
CROSS_EXTRA: List[Any] = [
    {"command": "create", "path": "/memories/a/b.txt", "file_text": "x\ny\n"},
    {"command": "insert", "path": "/memories/a/b.txt", "insert_line": 99, "insert_text": "z"},
    {"command": "insert", "path": "/memories/a/b.txt", "insert_line": "1", "insert_text": "z"},
    {"command": "str_replace", "path": "/memories/a/b.txt", "old_str": "", "new_str": "q"},
    {"command": "str_replace", "path": "/memories/a/b.txt", "old_str": "nope", "new_str": "q"},
    {"command": "view", "path": "/memories/a/b.txt", "view_range": [2, 1]},
    {"command": "view", "path": "/memories/a/b.txt", "view_range": [1.5, 2]},
    {"command": "view", "path": "/memories/../etc/passwd"},
    {"command": "view", "path": "/etc"},
    {"command": "delete", "path": "/memories/"},
    {"command": "delete", "path": "/memories/nope"},
    {"command": "rename", "old_path": "/memories/a", "new_path": "/memories/a/inner"},
    {"command": "rename", "old_path": "/memories/a/b.txt", "new_path": "/memories/c.txt"},
    {"command": "create", "path": "/memories/nul\u0000.txt", "file_text": "a"},
    {"command": "create", "path": "/memories/s.txt", "file_text": "lone \ud800 surrogate"},
    {"command": "create", "path": "/memories/c.txt/below.txt", "file_text": "a"},
    {"command": "view", "path": "/memories", "unexpected": True},
    {"command": "view", "path": 42},
    {},
    [],
    None,
]

# Which reply (by request index) each expectation looks at.
HELLO, VIEW_ROOT, CREATE, VIEW_FILE, CREATE_AGAIN, REPLACE, VIEW_ROOT2, NO_PATH, UNKNOWN, NOT_OBJ, RESET, AFTER_RESET, BOGUS = range(13)

Check = Tuple[int, str, Callable[[dict], bool]]


def text(reply: dict) -> str:
    c = reply.get("content")
    if isinstance(c, list):
        return "".join(b.get("text", "") for b in c if isinstance(b, dict))
    return c if isinstance(c, str) else ""


def common_checks() -> List[Check]:
    return [
        (HELLO, "hello: ok, protocol 1", lambda r: r.get("ok") is True and r.get("protocol") == 1),
        (CREATE, "create succeeds", lambda r: r.get("is_error") is False and "created successfully" in text(r)),
        (CREATE_AGAIN, "create on an existing file is an error", lambda r: r.get("is_error") is True),
        (REPLACE, "str_replace succeeds", lambda r: r.get("is_error") is False),
        (NO_PATH, "view without path is an error, not a crash", lambda r: r.get("is_error") is True),
        (UNKNOWN, "unknown command is an error", lambda r: r.get("is_error") is True),
        (NOT_OBJ, "non-object input is an error", lambda r: r.get("is_error") is True),
        (RESET, "reset: ok", lambda r: r.get("ok") is True),
        (AFTER_RESET, "file gone after reset", lambda r: r.get("is_error") is True and "does not exist" in text(r)),
        (BOGUS, "unknown control: ok false", lambda r: r.get("ok") is False),
    ]


def sdk_file_view(r: dict) -> bool:
    # sdk-backends.md 2.4 / 3.3: split("\n") numbers the empty string after the final newline.
    return text(r).endswith("     5\tfive\n     6\t")


PY_SDK_CHECKS: List[Check] = [
    (VIEW_FILE, "5-line file shows a numbered empty line 6", sdk_file_view),
    (CREATE_AGAIN, "create-exists has no `Error: ` prefix", lambda r: text(r) == "File /memories/notes.txt already exists"),
    (VIEW_ROOT, "dir header omits `and node_modules`", lambda r: text(r).startswith("Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n")),
    (NO_PATH, "malformed input gives the exception repr", lambda r: text(r) == "AttributeError(\"'NoneType' object has no attribute 'startswith'\")"),
    (UNKNOWN, "unknown command: NotImplementedError repr", lambda r: text(r) == "NotImplementedError('Unknown command: frobnicate')"),
    (AFTER_RESET, "missing file: unprefixed spec text", lambda r: text(r) == "The path /memories/notes.txt does not exist. Please provide a valid path."),
]
TS_SDK_CHECKS: List[Check] = [
    (VIEW_FILE, "5-line file shows a numbered empty line 6", sdk_file_view),
    (CREATE_AGAIN, "create-exists has the `Error: ` prefix", lambda r: text(r) == "Error: File /memories/notes.txt already exists"),
    (VIEW_ROOT, "dir header matches the spec", lambda r: text(r).startswith("Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n")),
    (NO_PATH, "malformed input: `Error: ` + TypeError message", lambda r: text(r) == "Error: Cannot read properties of undefined (reading 'startsWith')"),
    (UNKNOWN, "unknown command: `Error: frobnicate not implemented`", lambda r: text(r) == "Error: frobnicate not implemented"),
    (AFTER_RESET, "missing file: `Error: ` + spec text", lambda r: text(r) == "Error: The path /memories/notes.txt does not exist. Please provide a valid path."),
]
DICT_CHECKS: List[Check] = [
    (VIEW_FILE, "no phantom line 6 (final newline ends line 5)", lambda r: text(r).endswith("     5\tfive")),
    (CREATE_AGAIN, "create-exists: the spec's text, prefix included", lambda r: text(r) == "Error: File /memories/notes.txt already exists"),
    (VIEW_ROOT2, "dir lists the file", lambda r: "\t/memories/notes.txt" in text(r)),
]

# The handler-function examples follow the spec's strings (and the reference's where it is silent).
HANDLER_CHECKS: List[Check] = DICT_CHECKS + [
    (NO_PATH, "missing path: a precise error", lambda r: text(r) == "Error: Missing required parameter `path` for command `view`."),
    (UNKNOWN, "unknown command: a precise error", lambda r: text(r).startswith("Error: Unknown command `frobnicate`.")),
    (NOT_OBJ, "non-object input: a precise error", lambda r: text(r) == "Error: The tool input must be a JSON object, got a string."),
    (AFTER_RESET, "missing file: the spec's view text", lambda r: text(r) == "The path /memories/notes.txt does not exist. Please provide a valid path."),
]


def shape_check(shape: str) -> Check:
    return (HELLO, f"hello: a handler of shape {shape}", lambda r: r.get("shape") == shape)


def handler_config(lang: str, target: str, shape: str, oracle: bool = False, flag: str = "--base") -> Dict[str, Any]:
    adapter, runner = (PY_ADAPTER, PY_ORACLE) if lang == "py" else (NODE_ADAPTER, NODE_ORACLE)
    interpreter = PY if lang == "py" else "node"
    folder = PY_EXAMPLES if lang == "py" else NODE_EXAMPLES
    where = "{base}" if flag == "--base" else "{memories}"
    cfg: Dict[str, Any] = {
        "cmd": [interpreter, adapter, os.path.join(folder, target), flag, where],
        "checks": HANDLER_CHECKS + [shape_check(shape)],
    }
    if oracle:  # an input-shape handler run by the SDK's own runner, as an application hands it over
        cfg["oracle"] = [interpreter, runner, os.path.join(folder, target), flag, where]
    return cfg


CONFIGS: Dict[str, Dict[str, Any]] = {
    "py-sync": {
        "cmd": [PY, PY_ADAPTER, "anthropic-local-fs", "--base", "{base}"],
        "oracle": [PY, PY_ORACLE, "anthropic-local-fs", "--base", "{base}"],
        "checks": PY_SDK_CHECKS,
    },
    "py-async": {
        "cmd": [PY, PY_ADAPTER, "anthropic-local-fs-async", "--base", "{base}"],
        "oracle": [PY, PY_ORACLE, "anthropic-local-fs-async", "--base", "{base}"],
        "checks": PY_SDK_CHECKS,
    },
    "py-dict": {
        "cmd": [PY, PY_ADAPTER, DICT_EXAMPLE + ":DictMemoryTool", "--base", "{base}"],
        "oracle": [PY, PY_ORACLE, DICT_EXAMPLE + ":DictMemoryTool", "--base", "{base}"],
        "checks": DICT_CHECKS,
    },
    "py-dict-factory": {
        "cmd": [PY, PY_ADAPTER, DICT_EXAMPLE + ":make", "--memories", "{memories}"],
        "checks": DICT_CHECKS,
    },
    "node-fs": {
        "cmd": ["node", NODE_ADAPTER, "anthropic-local-fs", "--base", "{base}"],
        "oracle": ["node", NODE_ORACLE, "anthropic-local-fs", "--base", "{base}"],
        "checks": TS_SDK_CHECKS,
    },
    "node-map-handlers": {
        "cmd": ["node", NODE_ADAPTER, MAP_EXAMPLE + ":handlers", "--base", "{base}"],
        "oracle": ["node", NODE_ORACLE, MAP_EXAMPLE + ":handlers", "--base", "{base}"],
        # A ready-made object keeps its state across reset: the adapter says no, and why.
        "checks": [c for c in DICT_CHECKS if c[0] != CREATE_AGAIN]
        + [(RESET, "reset of a ready-made object: ok false, saying why",
            lambda r: r.get("ok") is False and "ready-made" in str(r.get("error", "")))],
        "skip_common": {RESET, AFTER_RESET},
    },
    "node-map-factory": {
        "cmd": ["node", NODE_ADAPTER, MAP_EXAMPLE + ":makeTool", "--base", "{base}"],
        "oracle": ["node", NODE_ORACLE, MAP_EXAMPLE + ":makeTool", "--base", "{base}"],
        "checks": [c for c in DICT_CHECKS if c[0] != CREATE_AGAIN],
    },
    "py-handle-input": handler_config("py", "handle_input.py:handle", "input", oracle=True),
    "py-handle-async": handler_config("py", "handle_async.py:handle", "input"),
    "py-handle-tool-use": handler_config("py", "handle_tool_use.py:handle", "tool_use"),
    "py-handle-factory": handler_config("py", "handle_input.py:make", "input", flag="--memories"),
    "node-handle-input": handler_config("node", "handle-input.mjs:handle", "input", oracle=True),
    "node-handle-async": handler_config("node", "handle-async.mjs:handle", "input"),
    "node-handle-tool-use": handler_config("node", "handle-tool-use.mjs:handle", "tool_use"),
    "node-handle-factory": handler_config("node", "handle-input.mjs:makeHandle", "input", flag="--memories"),
}


class Proc:
    """A backend process spoken to one line at a time, with a timeout per reply."""

    def __init__(self, argv: List[str], env: Dict[str, str], stderr_path: str) -> None:
        self.stderr = open(stderr_path, "wb")
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env, cwd=ROOT)
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, obj: Any, timeout: float = 30.0) -> Any:
        assert self.p.stdin is not None
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return {"__selftest_error__": f"no reply within {timeout}s"}
        if line is None:
            return {"__selftest_error__": f"backend exited (status {self.p.wait()})"}
        try:
            return json.loads(line)
        except ValueError:
            return {"__selftest_error__": f"reply is not JSON: {line[:200]!r}"}

    def close(self) -> int:
        assert self.p.stdin is not None
        self.p.stdin.close()
        try:
            status = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            status = -9
        self.stderr.close()
        return status


def sandbox() -> Tuple[str, str]:
    base = tempfile.mkdtemp(prefix="memspec-selftest-")
    memories = os.path.join(base, "memories")
    os.mkdir(memories, 0o700)
    return base, memories


def substitute(argv: List[str], base: str, memories: str) -> Tuple[List[str], Dict[str, str]]:
    argv = [a.replace("{base}", base).replace("{memories}", memories) for a in argv]
    env = dict(os.environ, MEMSPEC_BASE=base, MEMSPEC_MEMORIES=memories)
    return argv, env


def show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def run_session(name: str, argv: List[str], verbose: bool) -> Tuple[List[dict], int, str]:
    base, memories = sandbox()
    try:
        argv, env = substitute(argv, base, memories)
        err_path = os.path.join(tempfile.gettempdir(), f"memspec-selftest-{name}-{os.getpid()}.stderr")
        proc = Proc(argv, env, err_path)
        replies = []
        for i, req in enumerate(REQUESTS):
            req = {"id": i + 1, **req}
            reply = proc.ask(req)
            replies.append(reply)
            if verbose:
                print(f"  > {show(req)}")
                print(f"  < {show(reply)}")
        status = proc.close()
        with open(err_path, "rb") as f:
            stderr = f.read().decode("utf-8", "replace")
        os.unlink(err_path)
        return replies, status, stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)


def check_session(cfg: Dict[str, Any], replies: List[dict], status: int) -> List[str]:
    problems = []
    for i, reply in enumerate(replies):
        if "__selftest_error__" in reply:
            problems.append(f"request {i + 1}: {reply['__selftest_error__']}")
        elif reply.get("id") != i + 1:
            problems.append(f"request {i + 1}: reply id {reply.get('id')!r}")
    if status != 0:
        problems.append(f"exit status {status} on EOF (want 0)")
    skip = cfg.get("skip_common", set())
    for idx, what, ok in [c for c in common_checks() if c[0] not in skip] + list(cfg.get("checks", [])):
        reply = replies[idx] if idx < len(replies) else {}
        try:
            good = bool(ok(reply))
        except Exception as exc:  # a check must not crash the run
            good = False
            what += f" ({exc!r})"
        if not good:
            problems.append(f"request {idx + 1}: expected {what}; got {show(reply)}")
    return problems


def crosscheck(name: str, cfg: Dict[str, Any]) -> List[str]:
    """Send the session's tool calls plus CROSS_EXTRA to the adapter, then to the SDK's own tool
    runner (runner_oracle.py / runner-oracle.mjs, mocked HTTP), in the same folder; diff them."""
    calls = [r["input"] for r in REQUESTS[:RESET] if "input" in r] + [
        json.loads(json.dumps(c)) for c in CROSS_EXTRA
    ]
    base, memories = sandbox()
    try:
        argv, env = substitute(cfg["cmd"], base, memories)
        err_path = os.path.join(tempfile.gettempdir(), f"memspec-selftest-x-{name}-{os.getpid()}.stderr")
        proc = Proc(argv, env, err_path)
        got = []
        for i, inp in enumerate(calls):
            reply = proc.ask({"id": i + 1, "input": inp})
            got.append({"content": reply.get("content"), "is_error": reply.get("is_error")})
        proc.close()
        os.unlink(err_path)
        shutil.rmtree(base)
        os.makedirs(memories, 0o700)
        argv, env = substitute(cfg["oracle"], base, memories)
        stdin = "".join(json.dumps(inp) + "\n" for inp in calls)
        out = subprocess.run(argv, input=stdin.encode(), capture_output=True, env=env, cwd=ROOT, timeout=300)
        if out.returncode != 0:
            return [f"oracle failed ({out.returncode}): {out.stderr.decode('utf-8', 'replace')[-2000:]}"]
        want = [json.loads(l) for l in out.stdout.decode().splitlines() if l.strip()]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    problems = [
        f"call {show(inp)}: adapter {show(g)} != runner {show(w)}"
        for inp, g, w in zip(calls, got, want)
        if g != w
    ]
    if len(want) != len(calls):
        problems.append(f"oracle gave {len(want)} results for {len(calls)} calls")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("configs", nargs="*", help="configurations to run (default: all); see --list")
    ap.add_argument("--list", action="store_true", help="list the built-in configurations")
    ap.add_argument("--crosscheck", action="store_true", help="diff against the SDKs' real tool runners")
    ap.add_argument("-q", "--quiet", action="store_true", help="do not print requests and replies")
    argv = sys.argv[1:]
    custom: Optional[List[str]] = None
    if "--" in argv:
        custom = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    args = ap.parse_args(argv)
    if args.list:
        for name, cfg in CONFIGS.items():
            print(f"{name:18} {' '.join(cfg['cmd'])}")
        return 0

    if custom:
        selected = {"custom": {"cmd": custom, "checks": []}}
    else:
        unknown = [c for c in args.configs if c not in CONFIGS]
        if unknown:
            ap.error(f"unknown configuration(s): {', '.join(unknown)} (see --list)")
        selected = {n: CONFIGS[n] for n in (args.configs or CONFIGS)}

    failed = 0
    for name, cfg in selected.items():
        print(f"== {name}: {' '.join(cfg['cmd'])}")
        replies, status, stderr = run_session(name, cfg["cmd"], verbose=not args.quiet)
        problems = check_session(cfg, replies, status)
        if args.crosscheck and cfg.get("oracle"):
            cross = crosscheck(name, cfg)
            if not cross:
                n = sum("input" in r for r in REQUESTS[:RESET]) + len(CROSS_EXTRA)
                print(f"  crosscheck: all {n} tool replies byte-identical to the SDK tool runner's tool_result")
            problems += cross
        for p in problems:
            print(f"  MISMATCH {p}")
        if problems and stderr.strip():
            print("  stderr (tail):\n    " + "\n    ".join(stderr.strip().splitlines()[-15:]))
        print(f"  {'FAIL' if problems else 'ok'} ({len(REQUESTS)} requests, exit {status})")
        failed += bool(problems)
    print(f"{len(selected) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
