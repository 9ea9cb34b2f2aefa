#!/usr/bin/env python3
"""memspec fuzz, measured: throughput side by side, and the time to find each broken backend.

    python3 benches/fuzz.py throughput [--steps 3000] [--reps 3]
    python3 benches/fuzz.py finds [--seed 1]

`throughput` runs `memspec fuzz` with one seed and a step budget against the in-process
reference, `memspec serve` over protocol v1 (the same reference as a process: what the harness
costs around a fast backend) and the official Python SDK helper, interleaved round by round, and
prints the median steps per second of each and the harness's share of the time (everything but
waiting for the backend's answers, from the report's own split).

`finds` runs the fuzzer once, serially, against each broken key-value backend of
tests/backends/kv (the race ones with two clients on a shared store) and each naive per-user
mapping of tests/backends/users (with `--users 2`) with a fixed seed and a 60 s budget, and prints the seconds until the divergence was found and shrunk, the steps it was shrunk
to and the kind of finding. Needs a release build (`cargo build --release`); `throughput` also
needs the SDK helpers (`bash .ci/install-sdks`).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# MEMSPEC_BIN: another build (a release build made in its own target directory, say).
MEMSPEC = os.environ.get("MEMSPEC_BIN", os.path.join(ROOT, "target", "release", "memspec"))
KV = os.path.join(ROOT, "tests", "backends", "kv")

SIDES = {
    "in process": [],
    "memspec serve": ["--backend", f"{MEMSPEC} serve {{memories}}"],
    "Python SDK helper": [
        "--backend",
        f"{ROOT}/.ci/.venv/bin/python {ROOT}/adapters/python/memspec_adapter.py "
        "anthropic-local-fs --base {base}",
    ],
}

SINGLE = [
    "prefix_delete", "shallow_rename", "stale_cache", "listing_cut", "content_cut",
    "separator_key", "glob_delete", "like_view", "nfc_names", "char_sizes", "case_fold",
    "trailing_dot", "rename_clobbers", "slash_kept",
]
RACES = [("lost_update", "ga-2026"), ("double_create", "beta-2025")]
# The naive per-user mappings of tests/backends/users, fuzzed as two users of one store.
USERS = ["glob_scan", "like_ids", "folded_ids", "path_cache"]
USERS_DIR = os.path.join(ROOT, "tests", "backends", "users")

RATE = re.compile(r"([\d,]+) steps? in ([\d.]+) s \((\d+) steps/s; the backend's share (\d+)%\)")
SHRUNK = re.compile(r"to (\d+) in \d+ replays|^  race \d+$", re.M)
# The first divergence's block in the human report: `FAIL fuzz.ID`, then `  KIND: message`; its
# first finding line ends `[LEVEL rule]`.
KIND = re.compile(r"^FAIL \S+\n  ([^:\n]+):", re.M)
RULE = re.compile(r"^  - .*\[(?:DATA LOSS |SECURITY )?(MUST|SHOULD) ([^\] ]+)\]$", re.M)


def fuzz(args, env=None):
    started = time.monotonic()
    out = subprocess.run([MEMSPEC, "fuzz", *args], capture_output=True, text=True, env=env)
    return out, time.monotonic() - started


def throughput(steps, reps, seed):
    rates = {name: [] for name in SIDES}
    shares = {name: [] for name in SIDES}
    for _ in range(reps):
        for name, backend in SIDES.items():
            # Every divergence counted, none shrunk: the rate is the sequences' own.
            out, _ = fuzz([*backend, "--seed", str(seed), "--steps", str(steps), "--keep-going", "--no-shrink"])
            match = RATE.search(out.stdout)
            if not match:
                sys.exit(f"{name}: no rate in\n{out.stdout}\n{out.stderr}")
            rates[name].append(int(match.group(3)))
            shares[name].append(100 - int(match.group(4)))
    print(f"memspec fuzz, seed {seed}, {steps} steps per run, medians of {reps} interleaved runs")
    print("| backend | steps/s | harness share of the time |")
    print("|---|---|---|")
    base = statistics.median(rates["in process"])
    for name in SIDES:
        rate = statistics.median(rates[name])
        print(f"| {name} | {rate:.0f} ({rate / base:.2f}x in process) | {statistics.median(shares[name]):.0f}% |")


def finds(seed):
    store = tempfile.mkdtemp(prefix="memspec-kv-")
    env = dict(os.environ, MEMSPEC_KV_DIR=store, PYTHONDONTWRITEBYTECODE="1")
    print(f"memspec fuzz against each broken backend, seed {seed}, --time 60 (serial)")
    print("| backend | found and shrunk in | steps after shrinking | finding |")
    print("|---|---|---|---|")
    runs = [(name, [], "ga-2026") for name in SINGLE]
    runs += [(name, ["--clients", "2"], revision) for name, revision in RACES]
    runs += [(name, ["--users", "2"], "ga-2026") for name in USERS]
    for name, extra, revision in runs:
        if "--users" in extra:
            backend = f"python3 {USERS_DIR}/{name}.py --shared --user {{user}} {{memories}}"
        else:
            shared = "--shared " if extra else ""
            backend = f"python3 {KV}/{name}.py {shared}--revision {revision} {{memories}}"
        out, seconds = fuzz(
            ["--backend", backend, "--not-on-folder", "--revision", revision, "--seed", str(seed),
             "--time", "60", *extra],
            env,
        )
        kind = KIND.search(out.stdout)
        rule = RULE.search(out.stdout)
        shrunk = SHRUNK.search(out.stdout)
        steps = (shrunk.group(1) or "1 (a race)") if shrunk else "-"
        what = (f"{rule.group(1)} {kind.group(1).strip()} ({rule.group(2)})"
                if kind and rule else "NOT FOUND")
        print(f"| {name} | {seconds:.1f} s | {steps} | {what} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("throughput")
    t.add_argument("--steps", type=int, default=3000)
    t.add_argument("--reps", type=int, default=3)
    t.add_argument("--seed", type=int, default=1)
    f = sub.add_parser("finds")
    f.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.path.exists(MEMSPEC):
        sys.exit("build first: cargo build --release")
    if args.what == "throughput":
        throughput(args.steps, args.reps, args.seed)
    else:
        finds(args.seed)


if __name__ == "__main__":
    main()
