#!/usr/bin/env python3
"""The default `memspec check` of slow real backends, two memspec builds side by side.

Issue 33's gate: each recipe (adapters/recipes/) and each official helper checked with default
flags in under 60 s on a quiet 2-core machine, finding what the previous build found. This runs
every backend under two builds of memspec (each from its own clone, so that each reads the cases
it was made with), taking turns (A B, then B A on the next rep), and prints per backend the wall
time of each, their ratio, and the root causes each reported, so that a cause one build finds
and the other does not shows at once.

    bash .ci/install-sdks && bash .ci/install-recipes
    git worktree add /tmp/base <commit> && (cd /tmp/base && cargo build --release)
    python3 benches/slow_backends.py --base /tmp/base --base-bin /tmp/base/target/release/memspec
    python3 benches/slow_backends.py --only langchain-fs,python-sdk --reps 2 --json out.json

The head is this clone with target/release/memspec (`cargo build --release` first). Redis needs
redis-server on PATH (one is started on a free port and stopped at the end). Standard library
only.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = os.path.dirname(HERE)
RECIPES_PY = ".ci/.venv-recipes/bin/python"
SDK_PY = ".ci/.venv/bin/python"

# name -> the arguments after `memspec check` (paths relative to the head clone, made absolute).
BACKENDS = {
    "reference": [],  # the in-process reference: no slower, says the issue
    "sqlite": ["--not-on-folder", "--python", "adapters/recipes/sqlite/sqlite_memory.py:SqliteMemoryTool", "--python-bin", RECIPES_PY],
    "redis": ["--not-on-folder", "--python", "adapters/recipes/redis/redis_memory.py:RedisMemoryTool", "--python-bin", RECIPES_PY],
    "langchain-state": ["--not-on-folder", "--python", "adapters/recipes/langchain/langchain_memory.py:state_memory", "--python-bin", RECIPES_PY],
    "langchain-fs": ["--python", "adapters/recipes/langchain/langchain_memory.py:filesystem_memory", "--python-bin", RECIPES_PY],
    "inspect-ai": ["--not-on-folder", "--python", "adapters/recipes/inspect_ai/inspect_memory.py:InspectMemoryTool", "--python-bin", RECIPES_PY],
    "python-sdk": ["--backend", f"{SDK_PY} adapters/python/memspec_adapter.py anthropic-local-fs --base {{base}}"],
    "typescript-sdk": ["--backend", "node adapters/node/memspec-adapter.mjs anthropic-local-fs --base {base}"],
}


def absolute(args):
    """Relative paths of the head clone made absolute, so that either build can run them."""
    out = []
    for arg in args:
        if arg.startswith(("adapters/", ".ci/")):
            arg = os.path.join(HEAD, arg)
        elif " " in arg:
            arg = " ".join(os.path.join(HEAD, w) if w.startswith(("adapters/", ".ci/")) else w for w in arg.split(" "))
        out.append(arg)
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(binary, clone, args, env):
    """One check: wall seconds, verdict, counts and root causes (rule and level)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        started = time.monotonic()
        proc = subprocess.run(
            [binary, "check", *args, "--report-json", report.name],
            cwd=clone, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        wall = time.monotonic() - started
        try:
            data = json.load(open(report.name))
        except (OSError, ValueError):
            return {"wall": wall, "exit": proc.returncode, "error": proc.stderr[-500:]}
    causes = sorted({f"{c.get('level')} {c.get('rule')}" for c in data.get("root_causes") or []})
    return {
        "wall": wall,
        "exit": proc.returncode,
        "verdict": data.get("verdict"),
        "counts": data.get("counts"),
        "causes": causes,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the base build's clone (its cases)")
    parser.add_argument("--base-bin", required=True, help="the base build's memspec")
    parser.add_argument("--head-bin", default=os.path.join(HEAD, "target/release/memspec"))
    parser.add_argument("--only", help="comma-separated backend names")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--json", help="write every run here")
    opts = parser.parse_args()
    names = opts.only.split(",") if opts.only else list(BACKENDS)
    env = dict(os.environ)
    redis = None
    if "redis" in names:
        if not shutil.which("redis-server"):
            sys.exit("redis-server is not on PATH (bash .ci/install-recipes installs it)")
        port = free_port()
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        env["MEMORY_REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        time.sleep(0.5)
    sides = {"base": (opts.base_bin, opts.base), "head": (opts.head_bin, HEAD)}
    runs = {name: {"base": [], "head": []} for name in names}
    try:
        for rep in range(opts.reps):
            for name in names:
                order = ["base", "head"] if rep % 2 == 0 else ["head", "base"]
                for side in order:
                    binary, clone = sides[side]
                    result = run(binary, clone, absolute(BACKENDS[name]), env)
                    runs[name][side].append(result)
                    print(f"{name:16} {side}: {result['wall']:6.1f} s  {result.get('verdict')}", file=sys.stderr, flush=True)
    finally:
        if redis:
            redis.terminate()
    print("| backend | base s | head s | head/base | root causes only in base | only in head |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in names:
        base = sorted(r["wall"] for r in runs[name]["base"])[len(runs[name]["base"]) // 2]
        head = sorted(r["wall"] for r in runs[name]["head"])[len(runs[name]["head"]) // 2]
        bc = set(runs[name]["base"][0].get("causes", []))
        hc = set(runs[name]["head"][0].get("causes", []))
        print(f"| {name} | {base:.1f} | {head:.1f} | {head / base:.2f} | {', '.join(sorted(bc - hc)) or '-'} | {', '.join(sorted(hc - bc)) or '-'} |")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
