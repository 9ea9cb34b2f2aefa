#!/usr/bin/env python3
"""Peak memory of the replay TUI on a transcript with one million-line tool result.

Generates a Messages API request body (pretty-printed, as an API log writes it) in which Claude
views a file and the recorded `tool_result` is the whole numbered view of LINES lines (default
1,000,000: about 25 MiB of JSON). The file is not in the replay's memory folders, so both the
backend (the built-in reference) and the reference refuse the view, and the step the TUI opens
on diffs the million-line recording against a one-line refusal.

Each memspec binary given with --memspec runs `memspec replay TRANSCRIPT` (the interactive TUI:
no --report) in a detached tmux session of 160x48 under `/usr/bin/time -v`. The script waits
until the screen shows the TUI is ready (its status line names the step it opened on), sends
keys (by default just `q`; --keys adds a walk through the diff and a search first), and reads
"Maximum resident set size" once the process has ended. The binaries take turns in each rep, so
machine noise lands on all of them alike. It reports, per binary, the median peak RSS, its
ratio to the transcript's size, the time until the first frame and the whole run's time.

    cargo build --release
    python3 benches/tui_memory.py --memspec target/release/memspec
    python3 benches/tui_memory.py --memspec before=/tmp/memspec-main --memspec after=target/release/memspec --reps 5
    python3 benches/tui_memory.py --shape create-view ...   # create the file, then view it

`--shape create-view` records a create of the LINES-line file and then its whole view (the
transcript holds the text twice); the reference then shows the view cut to 16,000 characters
(ga-2026), so the TUI diffs two long texts. `--format jsonl` writes JSON Lines of messages and
`--format session` a golden session (which opens the TUI's review) instead of a request body.

`--replay-bench [LABEL=]PATH` (repeatable) also runs builds of examples/replay_bench.rs with
`--replay-bench-args` (default 3000 steps; `--long` for its long step), --reps times each in
turns, and prints the median of every number they report side by side, with the ratio of the
first time on each line.

Exits 1 when a run failed (the TUI did not get ready, or exited non-zero). Needs tmux and GNU
time (`apt-get install tmux time`); standard library only otherwise.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

READY = re.compile(r"first divergence: step|no divergence|first change to review")
PATH = "/memories/logs/build.log"


def numbered(lines):
    """The file's text, and its whole view in the reference's numbered format."""
    text = "".join(f"log line {n:07d}\n" for n in range(1, lines + 1))
    view = [f"Here's the content of {PATH} with line numbers:"]
    view.extend(f"{n:>6}\tlog line {n:07d}" for n in range(1, lines + 1))
    return text, "\n".join(view)


def transcript(shape, lines):
    """A Messages API request body, and the calls it makes with their results."""
    text, view = numbered(lines)
    calls = []
    messages = [
        {"role": "user", "content": "What did the last build log say?"},
    ]

    def call(n, tool_input, result):
        calls.append((tool_input, result))
        tool_id = f"toolu_bench{n:04d}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look at my memory."},
                    {"type": "tool_use", "id": tool_id, "name": "memory", "input": tool_input},
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": result}],
            }
        )

    if shape == "create-view":
        call(
            1,
            {"command": "create", "path": PATH, "file_text": text},
            f"File created successfully at: {PATH}",
        )
    call(2, {"command": "view", "path": PATH}, view)
    messages.append({"role": "assistant", "content": "The build log ends at line %d." % lines})
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "tools": [{"type": "memory_20250818", "name": "memory"}],
        "messages": messages,
    }
    return body, calls


def write(out, shape, lines, form):
    """Writes the transcript in one of the formats `memspec replay` reads."""
    body, calls = transcript(shape, lines)
    if form == "request":
        json.dump(body, out, indent=2)
    elif form == "jsonl":
        for message in body["messages"]:
            out.write(json.dumps(message) + "\n")
    else:
        header = {"memspec_session": 1, "backend": "a backend that shows long views whole",
                  "created": "2026-11-22T08:00:00Z"}
        out.write(json.dumps(header) + "\n")
        for n, (tool_input, result) in enumerate(calls, 1):
            step = {"step": n, "input": tool_input, "result": {"text": result, "is_error": False}}
            out.write(json.dumps(step) + "\n")


# Keys for --keys walk: down the diff, side by side and back, the next change, a fold
# expanded, then a search through the steps (`/`, words of the long result, Enter).
WALK = ["PageDown", "PageDown", "v", "v", "]", "Enter", "/", "log line 0500000", "Enter"]


class Tmux:
    """A tmux server of our own (its own socket), so that nothing else's sessions are touched."""

    def __init__(self):
        self.socket = f"memspec-bench-{os.getpid()}"
        # A session that outlives the runs: a server whose last session ended exits, and a
        # new session started meanwhile fails.
        self.run("new-session", "-d", "-s", "keep", "-x", "20", "-y", "5", "sleep", "86400")

    def run(self, *args, check=True):
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], check=check, capture_output=True, text=True
        )

    def screen(self, session):
        result = self.run("capture-pane", "-p", "-t", session, check=False)
        return result.stdout if result.returncode == 0 else None

    def close(self):
        self.run("kill-server", check=False)


def one_run(tmux, binary, path, keys, timeout, scratch, n):
    """Runs the TUI once: (peak RSS in bytes, seconds to the first frame, seconds in all)."""
    session = f"run{n}"
    timing = os.path.join(scratch, f"time-{n}.txt")
    status = os.path.join(scratch, f"status-{n}.txt")
    command = (
        f"/usr/bin/time -v -o {shlex.quote(timing)} {shlex.quote(binary)} replay "
        f"{shlex.quote(path)}; echo $? > {shlex.quote(status)}"
    )
    started = time.perf_counter()
    started_tmux = tmux.run(
        "new-session", "-d", "-s", session, "-x", "160", "-y", "48", "sh", "-c", command, check=False
    )
    if started_tmux.returncode != 0:
        raise RuntimeError(f"tmux new-session failed: {started_tmux.stderr.strip()}")
    ready = None
    while time.perf_counter() - started < timeout:
        screen = tmux.screen(session)
        if screen is not None and READY.search(screen):
            ready = time.perf_counter() - started
            break
        if os.path.exists(status):
            break
        time.sleep(0.005)
    if ready is None:
        screen = tmux.screen(session) or ""
        tmux.run("kill-session", "-t", session, check=False)
        raise RuntimeError(f"{binary}: the TUI did not get ready; screen:\n{screen}")
    for key in keys:
        tmux.run("send-keys", "-t", session, *([key] if key in TMUX_KEYS else ["-l", key]))
        time.sleep(0.05)
    tmux.run("send-keys", "-t", session, "q")
    while not os.path.exists(status) or os.path.getsize(status) == 0:
        if time.perf_counter() - started > timeout:
            tmux.run("kill-session", "-t", session, check=False)
            raise RuntimeError(f"{binary}: the TUI did not quit")
        time.sleep(0.005)
    total = time.perf_counter() - started
    code = open(status).read().strip()
    if code != "0":
        raise RuntimeError(f"{binary}: exited {code}")
    peak = None
    for line in open(timing):
        if "Maximum resident set size" in line:
            peak = int(line.rsplit(":", 1)[1]) * 1024
    if peak is None:
        raise RuntimeError(f"{binary}: no peak RSS in {timing}")
    return peak, ready, total


TMUX_KEYS = {"PageDown", "PageUp", "Enter", "Escape", "Up", "Down"}

# A number with a unit in replay_bench's output: a time, a size or a ratio.
QUANTITY = re.compile(r"(\d+(?:\.\d+)?) ?(ns|µs|us|ms|s|MB|x)(?!\w)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
SECONDS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def bench_rows(output):
    """replay_bench's lines as (line with its numbers blanked, [(value, unit), ...])."""
    rows, seen = [], {}
    for line in output.splitlines():
        values = [(float(m[1]) * SECONDS.get(m[2], 1.0), m[2]) for m in QUANTITY.finditer(line)]
        if not values:
            continue
        key = " ".join(NUMBER.sub("#", QUANTITY.sub("#", line)).split())
        seen[key] = seen.get(key, 0) + 1
        rows.append((key if seen[key] == 1 else f"{key} ({seen[key]})", values))
    return rows


def shown(value, unit):
    if unit in SECONDS:
        return f"{value * 1e3:.2f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:.2f}{unit}" if unit == "x" else f"{value:.1f} {unit}"


def replay_bench(benches, args, reps):
    """Runs each replay_bench binary `reps` times, taking turns; prints medians side by side."""
    runs = {label: [] for label, _ in benches}
    for rep in range(reps):
        order = benches[rep % len(benches):] + benches[: rep % len(benches)]
        for label, binary in order:
            done = subprocess.run([binary, *args], capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{binary} {' '.join(args)}: exited {done.returncode}\n{done.stderr}")
            runs[label].append(bench_rows(done.stdout))
    first = benches[0][0]
    keys = [key for key, _ in runs[first][0]]
    medians = {}
    for label, _ in benches:
        table = {}
        for rows in runs[label]:
            for key, values in rows:
                table.setdefault(key, []).append(values)
        medians[label] = {
            key: [(statistics.median(v[i][0] for v in runs_of), runs_of[0][i][1])
                  for i in range(min(len(v) for v in runs_of))]
            for key, runs_of in table.items()
        }
    width = min(max(len(k) for k in keys), 70)
    print(f"replay_bench {' '.join(args)}: medians of {reps} run(s) each")
    print(f"{'':{width}}  " + "  ".join(f"{label:>28}" for label, _ in benches) + "   ratio")
    for key in keys:
        cells, firsts = [], []
        for label, _ in benches:
            values = medians[label].get(key)
            cells.append(" ".join(shown(v, u) for v, u in values) if values else "-")
            # The ratio compares the first time on the line (else its first number).
            timed = [v for v, u in values or [] if u in SECONDS] or [v for v, _ in values or []]
            firsts.append(timed[0] if timed else None)
        ratio = (f"{firsts[-1] / firsts[0]:.2f}x" if len(firsts) > 1 and firsts[0] and firsts[-1] is not None
                 else "")
        print(f"{key[:width]:{width}}  " + "  ".join(f"{c:>28}" for c in cells) + f"   {ratio}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--memspec",
        action="append",
        metavar="[LABEL=]PATH",
        help="a memspec binary (repeat to compare; default: the release build)",
    )
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--shape", choices=["view", "create-view"], default="view")
    parser.add_argument(
        "--format",
        choices=["request", "jsonl", "session"],
        default="request",
        help="a request body (pretty-printed), JSON Lines of messages, or a golden session",
    )
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--keys", choices=["quit", "walk"], default="quit")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--workdir", help="where the transcript is written (default: a temp dir)")
    parser.add_argument("--json", help="write every raw number to this file")
    parser.add_argument(
        "--replay-bench",
        action="append",
        metavar="[LABEL=]PATH",
        help="also run these builds of examples/replay_bench.rs (repeat to compare), side by side",
    )
    parser.add_argument(
        "--replay-bench-args",
        default="3000",
        help="arguments for replay_bench (default: 3000 steps; `--long` for the long step)",
    )
    args = parser.parse_args()

    for tool in ("tmux", "/usr/bin/time"):
        if not shutil.which(tool):
            sys.exit(f"tui_memory: {tool} is missing (apt-get install tmux time)")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(os.path.dirname(__file__), "..", "target"))
    binaries = []
    for given in args.memspec or [os.path.join(target, "release", "memspec")]:
        label, _, path = given.rpartition("=")
        path = os.path.abspath(path)
        if not os.access(path, os.X_OK):
            sys.exit(f"tui_memory: {path} is not an executable (cargo build --release?)")
        binaries.append((label or path, path))

    scratch = tempfile.mkdtemp(prefix="tui-memory-", dir=args.workdir)
    suffix = {"request": "request.json", "jsonl": "jsonl", "session": "golden.jsonl"}[args.format]
    path = os.path.join(scratch, f"{args.shape}-{args.lines}.{suffix}")
    started = time.perf_counter()
    with open(path, "w") as out:
        write(out, args.shape, args.lines, args.format)
    size = os.path.getsize(path)
    mib = lambda b: b / (1 << 20)
    print(
        f"transcript: {args.format}, {args.shape}, {args.lines:,} lines, {mib(size):.1f} MiB ({size:,} bytes), "
        f"written in {time.perf_counter() - started:.1f} s; keys: {args.keys}; {args.reps} rep(s)"
    )
    keys = WALK if args.keys == "walk" else []
    tmux = Tmux()
    runs = {label: [] for label, _ in binaries}
    failed = []
    n = 0
    try:
        for rep in range(args.reps):
            # Rotate who goes first.
            order = binaries[rep % len(binaries):] + binaries[: rep % len(binaries)]
            for label, binary in order:
                n += 1
                try:
                    peak, ready, total = one_run(tmux, binary, path, keys, args.timeout, scratch, n)
                except RuntimeError as e:
                    failed.append(str(e))
                    print(f"  rep {rep + 1} {label}: FAILED {e}", file=sys.stderr)
                    continue
                runs[label].append({"peak": peak, "ready": ready, "total": total})
                print(
                    f"  rep {rep + 1} {label}: peak {mib(peak):.1f} MiB ({peak / size:.2f}x), "
                    f"first frame {ready:.2f} s, in all {total:.2f} s"
                )
    finally:
        tmux.close()

    print()
    width = max(len(label) for label, _ in binaries)
    print(f"{'':{width}}  {'peak RSS':>10}  {'x transcript':>12}  {'first frame':>11}  {'in all':>8}")
    first = None
    for label, _ in binaries:
        rows = runs[label]
        if not rows:
            print(f"{label:{width}}  (every run failed)")
            continue
        peak = statistics.median(r["peak"] for r in rows)
        ready = statistics.median(r["ready"] for r in rows)
        total = statistics.median(r["total"] for r in rows)
        print(
            f"{label:{width}}  {mib(peak):>6.1f} MiB  {peak / size:>11.2f}x  {ready:>9.2f} s  {total:>6.2f} s"
        )
        if first is None:
            first = (label, peak, ready)
        else:
            print(
                f"{'':{width}}  {peak / first[1]:>9.2f}x of {first[0]}'s peak, "
                f"{ready / first[2]:.2f}x its time to the first frame"
            )
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"transcript_bytes": size, "format": args.format, "shape": args.shape, "lines": args.lines,
                       "keys": args.keys, "runs": runs}, out, indent=2)
    shutil.rmtree(scratch, ignore_errors=True)
    if args.replay_bench:
        benches = []
        for given in args.replay_bench:
            label, _, path = given.rpartition("=")
            benches.append((label or path, os.path.abspath(path)))
        print()
        try:
            replay_bench(benches, args.replay_bench_args.split(), args.reps)
        except RuntimeError as e:
            failed.append(str(e))
    if failed:
        print("\nProblems:\n" + "\n".join(f"- {f}" for f in failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
