#!/usr/bin/env python3
"""str_replace with a long repetitive old_str against a plain str_replace, side by side.

The occurrence search runs under the root's lock, so it must be linear whatever the shape of the
file and of old_str. One `memspec serve` process answers three kinds of request, interleaved in
a rotating order, each over a 400,000-byte file:

  plain       a short, unique old_str in a file of ordinary lines: the file is rewritten (fsync)
  many hits   old_str = 20,000 'a's in a file of 400,000 'a's (the red team's case): 380,001
              overlapping occurrences, refused with "Multiple occurrences ... in lines: 1" (no write)
  many lines  old_str = 200 lines of 99 'a's in a file of 4,000 such lines: 3,801 overlapping
              occurrences, one per line, refused with the 3,801 line numbers (no write)
  one hit     old_str = 199 lines of 99 'a's and one of 'b's, in a file of 'a' lines with that one
              'b' line: unique, the file is rewritten

and prints the medians and the ratios to `plain` (median of per-round ratios, min-max). The
target is within 2x of `plain`; before the linear search, `many hits` took about 31 s.
Standard library only. Usage:

    cargo build --release
    python3 benches/str_replace.py [--reps 31] [--bin target/release/memspec] [--workdir DIR]

`--workdir /dev/shm` (tmpfs: fsync is free) compares the software cost alone.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

SIZE = 400_000
LONG = 20_000
A_LINE = "a" * 99 + "\n"


def plain_text():
    """400,000 bytes of ordinary lines with one unique token in the middle."""
    rng = random.Random(20250818)
    words = "the user prefers concise answers project deadline meeting notes decided rust backend".split()
    lines, size = [], 0
    while size < SIZE:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12)))
        if len(lines) == 2500:
            line += " TOKEN-A"
        lines.append(line)
        size += len(line) + 1
    return ("\n".join(lines) + "\n")[:SIZE]


class Serve:
    def __init__(self, binary, memories):
        self.proc = subprocess.Popen(
            [binary, "serve", memories], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0

    def call(self, tool_input):
        """Returns (seconds from writing the request to reading the reply, reply)."""
        self.next_id += 1
        line = (json.dumps({"id": self.next_id, "input": tool_input}) + "\n").encode()
        start = time.perf_counter()
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        elapsed = time.perf_counter() - start
        return elapsed, json.loads(reply)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=31)
    parser.add_argument("--bin", default="target/release/memspec")
    parser.add_argument("--workdir", default=tempfile.gettempdir())
    parser.add_argument(
        "--kinds",
        default="plain,many hits,many lines,one hit",
        help="comma-separated subset (plain is always run): leave out `many hits` to time a build from before the linear search",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="memspec-bench-str-replace-", dir=args.workdir) as tmp:
        memories = os.path.join(tmp, "memories")
        os.mkdir(memories)
        for name, text in [
            ("plain.txt", plain_text()),
            ("many.txt", "a" * SIZE),
            ("lines.txt", A_LINE * 4000),
            ("one.txt", A_LINE * 2000 + "b" * 99 + "\n" + A_LINE * 1999),
        ]:
            with open(os.path.join(memories, name), "w") as f:
                f.write(text)
        serve = Serve(args.bin, memories)
        state = {"plain": "A", "one": "b"}
        many_lines = ", ".join(str(n) for n in range(1, 3802))

        def request(kind):
            if kind == "plain":
                old, new = f"TOKEN-{state['plain']}", "TOKEN-" + ("B" if state["plain"] == "A" else "A")
                state["plain"] = new[-1]
                return {"command": "str_replace", "path": "/memories/plain.txt", "old_str": old, "new_str": new}, False
            if kind == "many hits":
                return {"command": "str_replace", "path": "/memories/many.txt", "old_str": "a" * LONG, "new_str": "b"}, True
            if kind == "many lines":
                return {"command": "str_replace", "path": "/memories/lines.txt", "old_str": A_LINE * 200, "new_str": "b"}, True
            old = A_LINE * 199 + state["one"] * 99 + "\n"
            state["one"] = "c" if state["one"] == "b" else "b"
            return {"command": "str_replace", "path": "/memories/one.txt", "old_str": old, "new_str": A_LINE * 199 + state["one"] * 99 + "\n"}, False

        kinds = ["plain"] + [k for k in ["many hits", "many lines", "one hit"] if k in args.kinds.split(",")]
        times = {k: [] for k in kinds}
        for rep in range(args.reps + 1):
            order = kinds[rep % len(kinds):] + kinds[: rep % len(kinds)]
            for kind in order:
                tool_input, want_error = request(kind)
                elapsed, reply = serve.call(tool_input)
                if reply.get("is_error") is not want_error:
                    sys.exit(f"{kind}: unexpected reply {str(reply)[:300]}")
                want_lines = {"many hits": "1", "many lines": many_lines}.get(kind)
                if want_lines and not reply["content"].endswith(f"in lines: {want_lines}. Please ensure it is unique"):
                    sys.exit(f"{kind}: unexpected message {reply['content'][-200:]}")
                if rep > 0:  # the first round warms up
                    times[kind].append(elapsed)
        serve.close()

    plain = times["plain"]
    print(f"str_replace over {SIZE:,}-byte files (`{args.bin}`), {args.reps} interleaved rounds, workdir {args.workdir}")
    print()
    print("| request | median | min–max | ratio to plain (median of per-round ratios, min–max) |")
    print("|---|---|---|---|")
    for kind in kinds:
        t = times[kind]
        ratios = [a / b for a, b in zip(t, plain)]
        print(
            f"| {kind} | {statistics.median(t) * 1e3:.2f} ms | {min(t) * 1e3:.2f}–{max(t) * 1e3:.2f} ms "
            f"| {statistics.median(ratios):.2f}x ({min(ratios):.2f}–{max(ratios):.2f}) |"
        )


if __name__ == "__main__":
    main()
