#!/usr/bin/env python3
"""The proof that each broken key-value backend is broken, and only in its one way.

    python3 tests/backends/kv/selfcheck.py [-v] [NAME ...]

Drives every backend of this folder over protocol v1 (spawns it, writes JSON lines, reads the
replies), in both storage modes (the in-process dict and `--shared` SQLite), and asserts:

1. its bug sequence (README.md) shows the bug, and correct.py answers the same sequence as the
   reference does (the expected answer is written down here, from `memspec serve`);
2. an ordinary session that steps on none of the bugs' triggers gets exactly correct.py's
   answers (so each backend is otherwise the correct one);
3. for the two race backends: two processes on one `--shared` store, each sending its call at
   the same moment from its own thread, retried up to 8 times, show the race at least once;
   correct.py never shows it in as many tries; and one client alone is correct.

Exit 0 when every assertion holds. Standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
BROKEN = [
    "prefix_delete", "shallow_rename", "stale_cache", "listing_cut", "content_cut",
    "separator_key", "glob_delete", "like_view", "nfc_names", "char_sizes", "case_fold",
    "rename_clobbers", "trailing_dot", "slash_kept", "merged_upsert", "lost_update",
    "double_create",
]
RACES = {"lost_update", "double_create"}
VERBOSE = False


class Backend:
    """One backend process over protocol v1."""

    def __init__(self, name, memories, shared, kv_dir):
        cmd = [sys.executable, os.path.join(HERE, name + ".py")]
        if shared:
            cmd.append("--shared")
        cmd.append(memories)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MEMSPEC_KV_DIR=kv_dir)
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.n = 0
        hello = self.send({"control": "hello"})
        assert hello.get("ok") and hello.get("protocol") == 1, hello

    def send(self, req):
        self.n += 1
        req = dict(req, id=self.n)
        self.p.stdin.write(json.dumps(req).encode() + b"\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the backend exited")
        reply = json.loads(line)
        assert reply.get("id") == self.n, (req, reply)
        return reply

    def call(self, inp):
        r = self.send({"input": inp})
        content = r.get("content")
        if isinstance(content, list):
            content = "".join(b.get("text", "[image]") for b in content)
        return content, bool(r.get("is_error"))

    def reset(self):
        assert self.send({"control": "reset"}).get("ok")

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def view(p, **kw):
    return dict(command="view", path=p, **kw)


def create(p, text=""):
    return dict(command="create", path=p, file_text=text)


def replace(p, old, new):
    return dict(command="str_replace", path=p, old_str=old, new_str=new)


def insert(p, line, text):
    return dict(command="insert", path=p, insert_line=line, insert_text=text)


def delete(p):
    return dict(command="delete", path=p)


def rename(a, b):
    return dict(command="rename", old_path=a, new_path=b)


MISSING = "does not exist"
NFD, NFC = "/memories/e\u0301.txt", "/memories/\u00e9.txt"

# name -> (calls, index of the call that shows it, bug(text, is_error), correct(text, is_error))
BUGS = {
    "prefix_delete": (
        [create("/memories/a", "a"), create("/memories/ab.txt", "keep"), delete("/memories/a"),
         view("/memories/ab.txt")], 3,
        lambda t, e: e and MISSING in t,
        lambda t, e: not e and t.endswith("     1\tkeep")),
    "shallow_rename": (
        [create("/memories/d/s/y.txt", "deep"), rename("/memories/d", "/memories/e"),
         view("/memories/e/s/y.txt")], 2,
        lambda t, e: e and MISSING in t,
        lambda t, e: not e and t.endswith("     1\tdeep")),
    "slash_kept": (
        [create("/memories/sub/a.txt", "kept"), rename("/memories/sub", "/memories/e/"),
         view("/memories/e/a.txt")], 2,
        lambda t, e: e and MISSING in t,
        lambda t, e: not e and t.endswith("     1\tkept")),
    "stale_cache": (
        [create("/memories/a.txt", "one"), view("/memories/a.txt"), delete("/memories/a.txt"),
         view("/memories/a.txt")], 3,
        lambda t, e: not e and t.endswith("     1\tone"),
        lambda t, e: e and t == "The path /memories/a.txt does not exist. Please provide a "
                                "valid path."),
    "listing_cut": (
        [create(f"/memories/f{i:03}.txt", "x") for i in range(101)] + [view("/memories")], 101,
        lambda t, e: not e and t.count("\n") == 101 and "f099.txt" in t and "f100" not in t,
        lambda t, e: not e and t.count("\n") == 102 and t.endswith("1B\t/memories/f100.txt")),
    "content_cut": (
        [create("/memories/big.txt", "0123456789" * 7000), view("/memories")], 1,
        lambda t, e: "64.0K\t/memories/big.txt" in t,
        lambda t, e: t.endswith("68.4K\t/memories/big.txt")),
    "separator_key": (
        [create("/memories/a/b.txt", "1"), create("/memories/a_b.txt", "2")], 1,
        lambda t, e: e and "already exists" in t,
        lambda t, e: not e and t == "File created successfully at: /memories/a_b.txt"),
    "glob_delete": (
        [create("/memories/a.txt", "1"), create("/memories/b.txt", "2"),
         delete("/memories/*"), view("/memories")], 2,
        lambda t, e: not e and t == "Successfully deleted /memories/*",
        lambda t, e: e and t == "Error: The path /memories/* does not exist"),
    "like_view": (
        [create("/memories/axb.txt", "x"), view("/memories/a_b.txt")], 1,
        lambda t, e: not e and t.endswith("     1\tx"),
        lambda t, e: e and MISSING in t),
    "nfc_names": (
        [create(NFD, "decomposed"), create(NFC, "composed")], 1,
        lambda t, e: e and "already exists" in t,
        lambda t, e: not e and t == f"File created successfully at: {NFC}"),
    "char_sizes": (
        [create("/memories/e.txt", "\u00e9"), view("/memories")], 1,
        lambda t, e: t.endswith("1B\t/memories/e.txt"),
        lambda t, e: t.endswith("2B\t/memories/e.txt")),
    "merged_upsert": (
        [create("/memories/a/b.txt", "1"), create("/memories/a_b.txt", "2"),
         view("/memories/a/b.txt")], 2,
        lambda t, e: not e and t.endswith("     1\t2"),
        lambda t, e: not e and t.endswith("     1\t1")),
    "case_fold": (
        [create("/memories/A.txt", "upper"), create("/memories/a.txt", "lower")], 1,
        lambda t, e: e and "already exists" in t,
        lambda t, e: not e and t == "File created successfully at: /memories/a.txt"),
    "rename_clobbers": (
        [create("/memories/a.txt", "A"), create("/memories/b.txt", "B"),
         rename("/memories/a.txt", "/memories/b.txt"), view("/memories/b.txt")], 2,
        lambda t, e: not e and t.startswith("Successfully renamed"),
        lambda t, e: e and t == "Error: The destination /memories/b.txt already exists"),
    "trailing_dot": (
        [create("/memories/notes", "1"), create("/memories/notes.", "2")], 1,
        lambda t, e: e and "already exists" in t,
        lambda t, e: not e and t == "File created successfully at: /memories/notes."),
}

# An ordinary session: lowercase ASCII names without `_`, `%`, `*`, trailing dots or shared
# prefixes, ASCII content under 64 KiB, few entries, no folder renamed with grandchildren,
# no view of a path after it was deleted or renamed away.
ORDINARY = [
    view("/memories"),
    create("/memories/notes/todo.txt", "milk\neggs\nbread\n"),
    create("/memories/log.txt", "started\n"),
    view("/memories"),
    view("/memories/notes/todo.txt"),
    replace("/memories/notes/todo.txt", "eggs", "butter"),
    replace("/memories/notes/todo.txt", "tea", "x"),
    insert("/memories/notes/todo.txt", 1, "flour"),
    insert("/memories/notes/todo.txt", 9, "x"),
    view("/memories/notes/todo.txt", view_range=[2, 3]),
    create("/memories/log.txt", "again"),
    rename("/memories/log.txt", "/memories/history.txt"),
    rename("/memories/notes", "/memories/work"),
    view("/memories/work/todo.txt"),
    view("/memories"),
    delete("/memories/history.txt"),
    delete("/memories/nothing.txt"),
    view("/memories/nothing.txt"),
    create("/memories/work/plan.txt", "one\ntwo\n"),
    view("/memories/work"),
    delete("/memories/work"),
    view("/memories"),
    view("/memories/../etc/passwd"),
    delete("/memories"),
]


def run(name, calls, shared, kv_dir):
    with tempfile.TemporaryDirectory(prefix="kv-selfcheck-") as memories:
        b = Backend(name, memories, shared, kv_dir)
        try:
            b.reset()
            return [b.call(c) for c in calls]
        finally:
            b.reset()
            b.close()


def race(name, kv_dir, calls_a, calls_b, setup):
    """Two processes on one shared store; setup by A, then calls_a and calls_b at once."""
    with tempfile.TemporaryDirectory(prefix="kv-race-") as memories:
        a = Backend(name, memories, True, kv_dir)
        b = Backend(name, memories, True, kv_dir)
        try:
            a.reset()
            for c in setup:
                a.call(c)
            gate = threading.Barrier(2)
            out = {}

            def go(backend, call, key):
                gate.wait()
                out[key] = backend.call(call)

            ts = [threading.Thread(target=go, args=(a, calls_a, "a")),
                  threading.Thread(target=go, args=(b, calls_b, "b"))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            return out["a"], out["b"], a.call(view("/memories/x.txt"))
        finally:
            a.reset()
            a.close()
            b.close()


LOST = (
    [create("/memories/x.txt", "one\ntwo\n")],
    replace("/memories/x.txt", "one", "ONE"), replace("/memories/x.txt", "two", "TWO"),
    lambda ra, rb, v: not ra[1] and not rb[1] and not ("ONE" in v[0] and "TWO" in v[0]),
)
DOUBLE = (
    [],
    create("/memories/x.txt", "A"), create("/memories/x.txt", "B"),
    lambda ra, rb, v: not ra[1] and not rb[1],
)


def log(msg):
    if VERBOSE:
        print("   ", msg)


def main(argv):
    global VERBOSE
    if "-v" in argv:
        VERBOSE = True
        argv = [a for a in argv if a != "-v"]
    names = argv or BROKEN
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="kv-selfcheck-db-") as kv_dir:
        for mode, shared in (("dict", False), ("shared", True)):
            expected = run("correct", ORDINARY, shared, kv_dir)
            for name in names:
                got = run(name, ORDINARY, shared, kv_dir)
                diff = [i for i, (x, y) in enumerate(zip(got, expected)) if x != y]
                check(not diff, f"{name} [{mode}]: an ordinary session answers as correct.py"
                      + (f" (differs at call {diff[0]}: {got[diff[0]]!r} vs "
                         f"{expected[diff[0]]!r})" if diff else ""))
                if name in BUGS:
                    calls, at, bug, right = BUGS[name]
                    t, e = run(name, calls, shared, kv_dir)[at]
                    log(f"{name}: {t[-160:]!r} is_error={e}")
                    check(bug(t, e), f"{name} [{mode}]: the bug shows at call {at} "
                          f"({calls[at]['command']})")
                    ct, ce = run("correct", calls, shared, kv_dir)[at]
                    check(right(ct, ce) and not bug(ct, ce),
                          f"{name} [{mode}]: correct.py answers that sequence right")
                if name in RACES:
                    setup, ca, cb, shows = LOST if name == "lost_update" else DOUBLE
                    calls = setup + [ca, cb, view("/memories/x.txt")]
                    one = run(name, calls, shared, kv_dir)
                    check(one == run("correct", calls, shared, kv_dir),
                          f"{name} [{mode}]: one client alone is correct")
        for name in names:
            if name not in RACES:
                continue
            setup, ca, cb, shows = LOST if name == "lost_update" else DOUBLE
            hits = 0
            for attempt in range(8):
                ra, rb, v = race(name, kv_dir, ca, cb, setup)
                log(f"{name} try {attempt}: {ra} | {rb} | {v[0][-40:]!r}")
                if shows(ra, rb, v):
                    hits += 1
                    break
            check(hits > 0, f"{name} [2 clients, shared]: the race shows (after "
                  f"{attempt + 1} tries)")
            clean = all(not shows(*race("correct", kv_dir, ca, cb, setup)) for _ in range(8))
            check(clean, f"{name}: correct.py with 2 clients never shows it (8 tries)")
    print(f"\n{len(failures)} failure(s)" if failures else "\nall checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
