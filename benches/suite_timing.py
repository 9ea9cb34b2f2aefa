#!/usr/bin/env python3
"""Times the whole suite: `memspec check` in process and against `memspec serve` over stdio.

Runs each N times (default 9) with the release binary and prints the medians of the wall-clock
time, the backend's median time per call and the harness's own time per call, as the human
report states them. Usage: python3 benches/suite_timing.py [--runs N] [--bin target/release/memspec]
"""

import argparse
import re
import statistics
import subprocess
import sys

SUMMARY = re.compile(r"in (?P<secs>[0-9.]+) s")
CALLS = re.compile(r"backend median (?P<backend>\d+) µs per call, harness (?P<harness>\d+) µs per call")


def run(binary, extra):
    out = subprocess.run([binary, "check", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"memspec check {' '.join(extra)} exited {out.returncode}:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    secs = float(SUMMARY.search(out.stdout)["secs"])
    calls = CALLS.search(out.stdout)
    return secs, int(calls["backend"]), int(calls["harness"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--bin", default="target/release/memspec")
    args = parser.parse_args()
    rows = [("in process (default)", []), ("memspec serve over stdio", ["--backend", f"{args.bin} serve {{memories}}"])]
    print("| backend | median wall-clock | min–max | backend median per call | harness per call |")
    print("|---|---|---|---|---|")
    for name, extra in rows:
        samples = [run(args.bin, extra) for _ in range(args.runs)]
        secs = [s[0] for s in samples]
        print(
            f"| {name} | {statistics.median(secs):.2f} s | {min(secs):.2f}–{max(secs):.2f} s "
            f"| {statistics.median(s[1] for s in samples):.0f} µs | {statistics.median(s[2] for s in samples):.0f} µs |"
        )


if __name__ == "__main__":
    main()
