#!/usr/bin/env python3
"""memspec benchmarks: the reference backend side by side with the Python SDK helper.

One command runs every measurement, interleaved, and prints a Markdown table of medians and
ratios (see benches/README.md for what is measured and why):

  1. mixed workload (create / view file / view folder / str_replace / insert / rename / delete,
     deterministic from a seed) over protocol v1: `memspec serve` vs the Python SDK's
     BetaLocalFilesystemMemoryTool behind its JSONL adapter, plus the fsync+rename floor of the
     same workload's writes, run alone and behind the same client (one request per op);
  2. `view` of a 999,999-line file over protocol v1, both backends, memspec under `beta-2025`
     (whole-file views; `ga-2026` cuts a view at 16,000 characters);
  3. `view /memories` of a folder of 10,000 files over protocol v1, both backends;
  4. `memspec call --revision beta-2025 '{"command":"view",...}' > /dev/null` vs
     `cat -n big.txt > /dev/null`, as whole processes, on the same bytes;
  5. (check, not timed) strace counts of fsync / rename / link / unlink / flock on each side over
     the mixed workload: memspec must fsync and rename every content write into place.

Sections 1, 3 and 5 run memspec under `--revision` (default ga-2026); 2 and 4 always under
beta-2025, the revision that shows a whole file. Every section checks its own results (replies,
final state, identical bytes, syscall counts); the script exits 1 if any check fails.

Standard library only (plus a C compiler for the floor if there is one, strace for 5, hyperfine
for the optional cross-check of 4). Usage:

    python3 benches/run.py                 # everything, 5 repetitions
    python3 benches/run.py --quick         # smaller workload, 3 repetitions
    python3 benches/run.py --reps 9 --sections 1,4 --json results.json
    python3 benches/run.py --quick --revision beta-2025
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHES = Path(__file__).resolve().parent

BIG_LINES = 999_999
WIDE_FILES = 10_000
# The revision that shows a whole file: sections 2 and 4 compare whole-file views.
WHOLE_VIEW_REVISION = "beta-2025"
REVISIONS = ("ga-2026", "beta-2025")
# The targets of issue 23, shown in the report (not checks: the script's exit code does not depend
# on them).
TARGET_PYTHON = 3.0  # mixed workload: memspec throughput over the Python helper's, median
TARGET_FLOOR = 1.2  # mixed workload: memspec time over the fsync+rename floor's, noise-filtered
TARGET_CAT = 1.2  # section 4: memspec call time over cat -n's, median

# --------------------------------------------------------------------------------------------
# Deterministic text
# --------------------------------------------------------------------------------------------

WORDS = """
the user prefers concise answers project deadline meeting notes decided to use rust for the
backend python scripts deploy staging production review pull request tests failing flaky fixed
database migration schema index query latency cache redis postgres api endpoint token auth
customer feedback feature request bug report priority high low medium sprint planning retro
action item owner alice bob carol dave erin frank team lead design doc architecture diagram
memory tool context window conversation summary follow up next week monday friday quarterly
goals metrics dashboard alert on call incident postmortem root cause mitigation rollback config
flag environment variable secret rotation budget hiring interview onboarding documentation
readme changelog release version semver breaking change deprecation timezone utc locale english
french prefers dark mode vim keybindings tabs spaces formatting lint clippy black ruff mypy
""".split()

FOLDERS = [
    "projects", "projects/alpha", "projects/beta", "projects/gamma", "people", "preferences",
    "decisions", "notes", "tasks", "reference", "journal",
]
TOP_FOLDERS = [f for f in FOLDERS if "/" not in f]

# Weights of the timed mix (percent). See README "Workload composition".
MIX = [
    ("view_file", 30),
    ("view_folder", 8),
    ("create", 14),
    ("str_replace", 22),
    ("insert", 12),
    ("rename", 6),
    ("delete", 8),
]
WRITES = {"create", "str_replace", "insert"}  # the commands that write file content (one fsync each)


def words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


class Model:
    """The memory folder as the workload believes it is: path -> list of lines.

    Every file ends with a newline and every line carries a bracketed token unique in its file,
    so str_replace always has exactly one match and both backends agree on line counts (they
    differ on a file without a final newline, which this workload never produces)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.files: dict[str, list[str]] = {}
        self.next_file = 0
        self.next_line: dict[str, int] = {}

    def new_path(self, folder: str | None = None) -> str:
        self.next_file += 1
        folder = folder or self.rng.choice(FOLDERS)
        return f"{folder}/{folder.split('/')[-1]}-{self.next_file:05d}.md"

    def new_line(self, path: str) -> str:
        n = self.next_line.get(path, 0)
        self.next_line[path] = n + 1
        fid = path.rsplit("-", 1)[-1].split(".")[0]
        return f"- [{fid}.{n}] {words(self.rng, 3, 12)}"

    def content(self, path: str) -> str:
        return "\n".join(self.files[path]) + "\n"

    def create(self, lo: int, hi: int, folder: str | None = None) -> tuple[str, str]:
        path = self.new_path(folder)
        self.files[path] = [self.new_line(path) for _ in range(self.rng.randint(lo, hi))]
        return path, self.content(path)


def make_workload(seed: int, n_files: int, n_ops: int) -> dict:
    """Builds the populate phase, the timed ops, the floor's ops and the expected final state."""
    rng = random.Random(seed)
    m = Model(rng)
    populate = []
    # Every folder gets at least one file, so the floor can create folders up front.
    for i in range(n_files):
        path, text = m.create(5, 60, FOLDERS[i] if i < len(FOLDERS) else None)
        populate.append({"command": "create", "path": f"/memories/{path}", "file_text": text})
    initial = {p: m.content(p) for p in m.files}

    names = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    ops, kinds, floor_ops, floor_upto, counts = [], [], [], [], {k: 0 for k in names}
    min_files = max(10, n_files // 2)
    while len(ops) < n_ops:
        kind = rng.choices(names, weights)[0]
        if kind == "delete" and len(m.files) <= min_files:
            continue
        existing = sorted(m.files)
        if kind == "view_file":
            path = rng.choice(existing)
            inp = {"command": "view", "path": f"/memories/{path}"}
            if rng.random() < 0.25:
                n = len(m.files[path])
                a = rng.randint(1, n)
                inp["view_range"] = [a, min(n, a + rng.randint(0, 20))]
            floor_ops.append(("V", path))
        elif kind == "view_folder":
            folder = "." if rng.random() < 0.25 else rng.choice(TOP_FOLDERS)
            inp = {"command": "view", "path": "/memories" if folder == "." else f"/memories/{folder}"}
            floor_ops.append(("L", folder))
        elif kind == "create":
            path, text = m.create(3, 40)
            inp = {"command": "create", "path": f"/memories/{path}", "file_text": text}
            floor_ops.append(("W", path, text))
        elif kind == "str_replace":
            path = rng.choice(existing)
            lines = m.files[path]
            i = rng.randrange(len(lines))
            old = lines[i]
            new = m.new_line(path)
            lines[i] = new
            inp = {"command": "str_replace", "path": f"/memories/{path}", "old_str": old, "new_str": new}
            floor_ops.append(("W", path, m.content(path)))
        elif kind == "insert":
            path = rng.choice(existing)
            lines = m.files[path]
            at = rng.randint(0, len(lines))
            text = m.new_line(path)
            lines.insert(at, text)
            # A whole line with its newline: both backends then write the same bytes. (Without
            # it they differ at the end of a file: the reference leaves the file without a final
            # newline, the Python helper always ends it with one.)
            inp = {"command": "insert", "path": f"/memories/{path}", "insert_line": at,
                   "insert_text": text + "\n"}
            floor_ops.append(("W", path, m.content(path)))
        elif kind == "rename":
            old = rng.choice(existing)
            new = m.new_path()
            m.files[new] = m.files.pop(old)
            m.next_line[new] = m.next_line.pop(old)
            inp = {"command": "rename", "old_path": f"/memories/{old}", "new_path": f"/memories/{new}"}
            floor_ops.append(("R", old, new))
        else:  # delete
            path = rng.choice(existing)
            del m.files[path]
            inp = {"command": "delete", "path": f"/memories/{path}"}
            floor_ops.append(("D", path))
        counts[kind] += 1
        kinds.append(kind)
        ops.append(inp)
        floor_upto.append(len(floor_ops))  # floor ops of timed ops 0..k end here
    final = {p: m.content(p) for p in m.files}
    return {"populate": populate, "initial": initial, "ops": ops, "kinds": kinds, "floor_ops": floor_ops,
            "floor_upto": floor_upto,
            "final": final, "counts": counts}


def tree(memories: Path) -> dict[str, str]:
    """Every file below `memories` (hidden temp files included, so leftovers are caught)."""
    out = {}
    for dirpath, _dirs, files in os.walk(memories):
        for name in files:
            p = Path(dirpath, name)
            out[str(p.relative_to(memories))] = p.read_text("utf-8")
    return out


def big_file_text(seed: int) -> str:
    rng = random.Random(seed)
    # 999,999 lines and no final newline: the Python helper numbers the empty string after a final
    # "\n" as a line of its own, so with one it would count 1,000,000 lines and refuse the file.
    return "\n".join(f"{words(rng, 1, 10)}" for _ in range(BIG_LINES))


# --------------------------------------------------------------------------------------------
# Protocol v1 client
# --------------------------------------------------------------------------------------------


def round_trip(proc: subprocess.Popen, fd_in: int, line: bytes, who: str) -> bytes:
    """Writes one request line to `proc` and reads its one reply line: what every side that is
    spoken to through the pipes pays per request, the same code for each."""
    view = memoryview(line)
    while view:
        view = view[os.write(fd_in, view):]
    reply = proc.stdout.readline()
    if not reply:
        raise RuntimeError(f"{who} closed its output")
    return reply


def process_cpu(pid: int) -> float:
    """Seconds the process has run on a CPU (all its threads, system calls included), from the
    scheduler."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
    except OSError:
        return float("nan")
    return total / 1e9


class Proto:
    """One backend process spoken to in lock step: one request in flight, like the harness."""

    def __init__(self, name: str, argv: list[str], log: Path, env: dict | None = None):
        self.name = name
        self.argv = argv
        self.log = open(log, "ab")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, bufsize=1 << 20, env=env)
        self.fd_in = self.proc.stdin.fileno()
        self.who = f"{name} (see {self.log.name})"
        self.next_id = 1
        self.last_cpu = float("nan")

    def cpu(self) -> float:
        return process_cpu(self.proc.pid)

    def encode(self, body: dict) -> bytes:
        body = {"id": self.next_id, **body}
        self.next_id += 1
        return json.dumps(body, ensure_ascii=False).encode("utf-8") + b"\n"

    def _send(self, line: bytes) -> bytes:
        return round_trip(self.proc, self.fd_in, line, self.who)

    def call(self, body: dict) -> dict:
        line = self.encode(body)
        want = self.next_id - 1
        reply = json.loads(self._send(line))
        if reply.get("id") != want:
            raise RuntimeError(f"{self.name}: reply id {reply.get('id')!r}, expected {want}")
        return reply

    def timed(self, inputs: list[dict]) -> tuple[float, list[bytes]]:
        """Sends every input in turn; returns seconds from the first request to the last reply,
        and the raw replies (parsed afterwards, outside the timing)."""
        lines = [self.encode({"input": i}) for i in inputs]
        first = self.next_id - len(lines)
        replies = []
        send = self._send
        c0 = self.cpu()
        t0 = time.perf_counter()
        stamps = []
        clock = time.perf_counter
        for line in lines:
            replies.append(send(line))
            stamps.append(clock())
        elapsed = stamps[-1] - t0 if stamps else 0.0
        self.last_cpu = self.cpu() - c0
        self.last_durations = [b - a for a, b in zip([t0] + stamps[:-1], stamps)]
        for k, raw in enumerate(replies):
            if json.loads(raw).get("id") != first + k:
                raise RuntimeError(f"{self.name}: reply {k} has the wrong id")
        return elapsed, replies

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def content_text(reply: dict) -> str:
    c = reply.get("content")
    if isinstance(c, list):
        return "".join(b.get("text", "") for b in c)
    return c if isinstance(c, str) else ""


def errors_in(replies: list[bytes]) -> list[str]:
    bad = []
    for raw in replies:
        r = json.loads(raw)
        if r.get("is_error"):
            bad.append(content_text(r)[:200])
    return bad


# --------------------------------------------------------------------------------------------
# The fsync + rename floor
# --------------------------------------------------------------------------------------------

FLOOR_C = r"""
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* floor OPS DIR [reads]: the least a durable backend must do for the workload.
   OPS records:  W path len\n<len bytes>\n : write a temp file in the same folder, fsync, rename
                 R old new\n               : rename
                 D path\n                  : unlink
                 V path\n                  : (reads) read the file whole
                 L path\n                  : (reads) list the folder: every entry below it stat'ed
   Without "reads", V and L do nothing: the bare floor makes only the durable syscalls.
   The ops are parsed up front; then each stdin line "A B" runs ops A..B-1 and prints the seconds
   spent (wall, then CPU), so the harness can interleave chunks of the floor with chunks of the backends. */
struct op { char kind; char *a, *b; long len; };
static char readbuf[1 << 20];
static int open_noatime(int dir, const char *path, int flags) {
  int fd = openat(dir, path, flags | O_NOATIME);
  return fd < 0 && errno == EPERM ? openat(dir, path, flags) : fd;
}
/* Sums the sizes below the open folder fd, as a listing with sizes must learn them. */
static long long list(int fd) {
  DIR *d = fdopendir(fd); if (!d) { perror("fdopendir"); exit(1); }
  long long total = 0; struct dirent *e; struct stat st;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) { perror(e->d_name); exit(1); }
    if (S_ISDIR(st.st_mode)) {
      int sub = open_noatime(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      if (sub < 0) { perror(e->d_name); exit(1); }
      total += list(sub);
    } else total += st.st_size;
  }
  closedir(d);
  return total;
}
int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) return 2;
  int reads = argc == 4 && !strcmp(argv[3], "reads");
  FILE *f = fopen(argv[1], "rb"); if (!f) { perror("ops"); return 2; }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char *buf = malloc(n + 1); if (fread(buf, 1, n, f) != (size_t)n) return 2; buf[n] = 0; fclose(f);
  long cap = 1024, count = 0; struct op *ops = malloc(cap * sizeof *ops);
  for (char *p = buf; p < buf + n; count++) {
    if (count == cap) ops = realloc(ops, (cap *= 2) * sizeof *ops);
    struct op *o = &ops[count]; o->kind = *p; p += 2;
    if (o->kind == 'W') {
      o->a = p; p = strchr(p, ' '); *p++ = 0;
      o->len = strtol(p, &p, 10); p++; o->b = p; p += o->len + 1;
    } else if (o->kind == 'R') {
      o->a = p; p = strchr(p, ' '); *p++ = 0; o->b = p; p = strchr(p, '\n'); *p++ = 0;
    } else {
      o->a = p; p = strchr(p, '\n'); *p++ = 0;
    }
  }
  if (chdir(argv[2])) { perror("chdir"); return 2; }
  long from, to; char tmp[4096]; volatile long long sink = 0;
  while (scanf("%ld %ld", &from, &to) == 2) {
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0); clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = from; i < to && i < count; i++) {
      struct op *o = &ops[i];
      if (o->kind == 'W') {
        char *slash = strrchr(o->a, '/');
        snprintf(tmp, sizeof tmp, "%.*s/.floor-tmp", (int)(slash - o->a), o->a);
        int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY, 0600); if (fd < 0) { perror(tmp); return 1; }
        for (long off = 0; off < o->len;) {
          ssize_t w = write(fd, o->b + off, o->len - off); if (w <= 0) { perror("write"); return 1; } off += w;
        }
        if (fsync(fd)) { perror("fsync"); return 1; }
        close(fd);
        if (rename(tmp, o->a)) { perror("rename"); return 1; }
      } else if (o->kind == 'R') {
        if (rename(o->a, o->b)) { perror("rename"); return 1; }
      } else if (o->kind == 'D') {
        if (unlink(o->a)) { perror("unlink"); return 1; }
      } else if (o->kind == 'V' && reads) {
        int fd = open_noatime(AT_FDCWD, o->a, O_RDONLY); if (fd < 0) { perror(o->a); return 1; }
        ssize_t r;
        while ((r = read(fd, readbuf, sizeof readbuf)) > 0) sink += r;
        if (r < 0) { perror("read"); return 1; }
        close(fd);
      } else if (o->kind == 'L' && reads) {
        int fd = open_noatime(AT_FDCWD, o->a, O_RDONLY | O_DIRECTORY); if (fd < 0) { perror(o->a); return 1; }
        sink += list(fd);
      }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    printf("%.9f %.9f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
           (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9);
    fflush(stdout);
  }
  return 0;
}
"""


def build_floor(work: Path) -> list[str] | None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    src, exe = work / "floor.c", work / "floor"
    src.write_text(FLOOR_C)
    r = subprocess.run([cc, "-O2", "-o", str(exe), str(src)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"warning: cannot compile the C floor, using the Python one:\n{r.stderr}", file=sys.stderr)
        return None
    return [str(exe)]


def write_floor_ops(ops: list[tuple], path: Path) -> None:
    with open(path, "wb") as f:
        for op in ops:
            if op[0] == "W":
                data = op[2].encode("utf-8")
                f.write(b"W %s %d\n" % (op[1].encode(), len(data)) + data + b"\n")
            elif op[0] == "R":
                f.write(b"R %s %s\n" % (op[1].encode(), op[2].encode()))
            else:  # D, V, L: one path
                f.write(b"%s %s\n" % (op[0].encode(), op[1].encode()))


def python_floor(ops: list[tuple], memories: Path) -> float:
    """Same as the C floor, for machines without a C compiler (adds a few µs per op)."""
    prepared = [(op[0], str(memories / op[1]),
                 op[2].encode() if op[0] == "W" else str(memories / op[2]) if op[0] == "R" else None)
                for op in ops]
    t0 = time.perf_counter()
    for kind, path, arg in prepared:
        if kind in "VL":  # reads: the bare floor makes none
            continue
        if kind == "W":
            tmp = os.path.join(os.path.dirname(path), ".floor-tmp")
            fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            view = memoryview(arg)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            os.close(fd)
            os.rename(tmp, path)
        elif kind == "R":
            os.rename(path, arg)
        else:
            os.unlink(path)
    return time.perf_counter() - t0


# --------------------------------------------------------------------------------------------
# A quiet machine
# --------------------------------------------------------------------------------------------


def _cpu_times() -> tuple[int, int]:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3]  # iowait (fields[4]) counts as busy: someone else is hitting the disk
    return sum(fields[:8]), idle


QUIET = {"checks": 0, "waited_s": 0.0, "gave_up": 0}


def wait_quiet(max_busy: float, timeout: float) -> None:
    """Waits (up to `timeout` s) until the machine is at most `max_busy` busy over 0.5 s, so that
    one rep is less likely to start while another process is compiling or writing to the disk."""
    if max_busy >= 1 or not os.path.exists("/proc/stat"):
        return
    QUIET["checks"] += 1
    start = time.monotonic()
    while True:
        t0, i0 = _cpu_times()
        time.sleep(0.5)
        t1, i1 = _cpu_times()
        busy = 1 - (i1 - i0) / max(1, t1 - t0)
        if busy <= max_busy:
            break
        if time.monotonic() - start > timeout:
            QUIET["gave_up"] += 1
            break
    QUIET["waited_s"] += time.monotonic() - start - 0.5


# --------------------------------------------------------------------------------------------
# Statistics and formatting
# --------------------------------------------------------------------------------------------


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def spread(xs: list[float], fmt) -> str:
    return f"{fmt(med(xs))} [{fmt(min(xs))}–{fmt(max(xs))}]"


def secs(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 10 else f"{x:.2f} s"


def usecs(x: float) -> str:
    return f"{x * 1e6:.0f} µs"


def rate(x: float) -> str:
    return f"{x:,.0f}"


# --------------------------------------------------------------------------------------------
# Runners
# --------------------------------------------------------------------------------------------


class Env:
    def __init__(self, args):
        self.args = args
        self.memspec = str(Path(args.memspec).resolve())
        self.python = args.python
        self.adapter = args.adapter
        self.work = Path(tempfile.mkdtemp(prefix="memspec-bench-", dir=args.workdir))
        self.logs = self.work / "logs"
        self.logs.mkdir()

    def start_memspec(self, memories: Path, revision: str) -> Proto:
        return Proto("memspec serve", [self.memspec, "serve", "--revision", revision, str(memories)],
                     self.logs / "memspec.log")

    def start_python(self, base: Path) -> Proto:
        if self.adapter.endswith("memspec_adapter.py"):
            argv = [self.python, self.adapter, "anthropic-local-fs", "--base", str(base)]
        else:
            argv = [self.python, self.adapter, "--base", str(base)]
        return Proto("python helper", argv, self.logs / "python.log")

    def start(self, which: str, base: Path, revision: str | None = None) -> Proto:
        """Starts a backend whose /memories is base/memories and warms it up (not timed). memspec
        follows `revision`, by default the one given with --revision."""
        (base / "memories").mkdir(parents=True, exist_ok=True)
        p = (self.start_memspec(base / "memories", revision or self.args.revision) if which == "memspec"
             else self.start_python(base))
        hello = p.call({"control": "hello"})
        if not hello.get("ok"):
            raise RuntimeError(f"{which}: hello failed: {hello}")
        p.call({"input": {"command": "view", "path": "/memories"}})
        return p


class Floor:
    """The fsync+rename floor as a process (C) or, without a compiler, a local loop (Python)."""

    def __init__(self, cmd: list[str] | None, ops: list[tuple], ops_file: Path, memories: Path,
                 reads: bool = False):
        """With `reads` (C only), a view reads the file or lists the folder as a backend must."""
        self.ops, self.memories = ops, memories
        self.proc = None
        if cmd:
            # Binary pipes and a large read buffer, as `Proto` has: `run_each` must pay what
            # memspec's and Python's round trips pay, no more.
            self.proc = subprocess.Popen(cmd + [str(ops_file), str(memories)] + (["reads"] if reads else []),
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1 << 20)
            self.fd_in = self.proc.stdin.fileno()

    def _ask(self, line: bytes) -> bytes:
        return round_trip(self.proc, self.fd_in, line, "the floor program")

    def run(self, a: int, b: int) -> float:
        """Runs floor ops a..b-1 in one request; returns the wall seconds the floor measured
        itself and sets last_cpu."""
        if self.proc is None:
            c0 = time.process_time()
            wall = python_floor(self.ops[a:b], self.memories)
            self.last_cpu = time.process_time() - c0
            return wall
        wall, self.last_cpu = map(float, self._ask(f"{a} {b}\n".encode()).split())
        return wall

    def run_each(self, spans: list[tuple[int, int]]) -> float:
        """Sends one request per timed op (its floor ops a..b-1, none for a read), in lock step
        like `Proto.timed`; returns wall seconds from the first request to the last reply, seen
        by the client, and sets last_cpu to the floor process's CPU time, its reads and writes of
        the pipes included."""
        lines = [f"{a} {b}\n".encode() for a, b in spans]
        ask = self._ask
        c0 = process_cpu(self.proc.pid)
        t0 = time.perf_counter()
        for line in lines:
            ask(line)
        wall = time.perf_counter() - t0
        self.last_cpu = process_cpu(self.proc.pid) - c0
        return wall

    def close(self) -> None:
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def run_mixed(env: Env, results: dict) -> None:
    a = env.args
    wl = make_workload(a.seed, a.files, a.ops)
    floor_cmd = build_floor(env.work)
    ops_file = env.work / "floor-ops.txt"
    write_floor_ops(wl["floor_ops"], ops_file)
    n = len(wl["ops"])
    bounds = [(i, min(n, i + a.chunk)) for i in range(0, n, a.chunk)]
    # "pipe" is `cat` echoing each request line back through the same client: the protocol's
    # round trips alone, which memspec and Python pay and the floor does not. "floor-each" is
    # the C floor behind that client, one request per timed op, making a view's reads too: the
    # least any backend there must do, wake-ups around each fsync included, which an echo
    # between fsyncs never sees.
    sides = ["memspec", "python", "floor", "pipe"] + (["floor-each"] if floor_cmd else [])
    stored = [s for s in sides if s != "pipe"]  # the sides with a memory folder
    times = {s: [] for s in sides}
    cpu = {s: [] for s in sides}
    by_kind = {"memspec": [], "python": []}  # per rep: kind -> seconds
    chunks = {s: [] for s in sides}  # per rep: seconds of each chunk
    problems = []
    # Folders of finished reps, removed at the end: removing them between reps would free a
    # thousand inodes, and on ext4 without a journal every new inode is allocated past the ones
    # freed in the last seconds, so the next rep's first chunks would all pay for that scan.
    done = []
    print(f"[1] mixed workload: {a.files} files populated, {n} timed ops in {len(bounds)} chunks of "
          f"{a.chunk}, interleaved across the four sides, {a.reps} reps", file=sys.stderr)
    for rep in range(a.reps):
        wait_quiet(a.max_busy, a.quiet_timeout)
        bases = {s: env.work / f"mixed-{s}-{rep}" for s in sides}
        procs = {}
        floor = floor_each = None
        try:
            for side in ("memspec", "python"):
                p = procs[side] = env.start(side, bases[side])
                _, pop = p.timed(wl["populate"])  # not timed: the workload's starting state
                if errors_in(pop):
                    raise RuntimeError(f"{side}: populate failed: {errors_in(pop)[:3]}")
            procs["pipe"] = Proto("pipe", [shutil.which("cat") or "/bin/cat"], env.logs / "pipe.log")
            procs["pipe"].timed(wl["ops"][:1])  # warm-up, like the others' hello and view
            for side in ("floor", "floor-each"):
                if side not in sides:
                    continue
                fm = bases[side] / "memories"
                for path, text in wl["initial"].items():
                    (fm / path).parent.mkdir(parents=True, exist_ok=True)
                    (fm / path).write_text(text)
            floor = Floor(floor_cmd, wl["floor_ops"], ops_file, bases["floor"] / "memories")
            if "floor-each" in sides:
                floor_each = Floor(floor_cmd, wl["floor_ops"], ops_file, bases["floor-each"] / "memories",
                                   reads=True)
            total = {s: 0.0 for s in sides}
            per_chunk = {s: [] for s in sides}
            used = {s: 0.0 for s in sides}
            kind_sums = {s: {k: 0.0 for k in wl["counts"]} for s in ("memspec", "python")}
            errs = {s: [] for s in ("memspec", "python")}
            for ci, (lo, hi) in enumerate(bounds):
                os.sync()  # every chunk starts with nothing left for the journal to commit
                k = (rep + ci) % len(sides)
                for side in sides[k:] + sides[:k]:
                    if side == "floor":
                        f_lo = wl["floor_upto"][lo - 1] if lo else 0
                        elapsed = floor.run(f_lo, wl["floor_upto"][hi - 1])
                        total["floor"] += elapsed
                        used["floor"] += floor.last_cpu
                        per_chunk["floor"].append(elapsed)
                        continue
                    if side == "floor-each":
                        upto = wl["floor_upto"]
                        elapsed = floor_each.run_each([(upto[k - 1] if k else 0, upto[k]) for k in range(lo, hi)])
                        total[side] += elapsed
                        used[side] += floor_each.last_cpu
                        per_chunk[side].append(elapsed)
                        continue
                    p = procs[side]
                    elapsed, replies = p.timed(wl["ops"][lo:hi])
                    total[side] += elapsed
                    per_chunk[side].append(elapsed)
                    used[side] += p.last_cpu
                    if side == "pipe":
                        continue
                    for kind, d in zip(wl["kinds"][lo:hi], p.last_durations):
                        kind_sums[side][kind] += d
                    errs[side] += errors_in(replies)
        finally:
            for p in procs.values():
                p.close()
            for f in (floor, floor_each):
                if f:
                    f.close()
        for side in stored:
            got = tree(bases[side] / "memories")
            if got != wl["final"]:
                missing = sorted(set(wl["final"]) - set(got))[:3]
                extra = sorted(set(got) - set(wl["final"]))[:3]
                differ = sorted(k for k in set(got) & set(wl["final"]) if got[k] != wl["final"][k])[:3]
                problems.append(f"{side} rep {rep}: final state differs from the model "
                                f"(missing {missing}, extra {extra}, different {differ})")
            done.append(bases[side])
        for side in ("memspec", "python"):
            if errs[side]:
                problems.append(f"{side} rep {rep}: {len(errs[side])} error replies, e.g. {errs[side][:2]}")
            by_kind[side].append(kind_sums[side])
        for side in sides:
            times[side].append(total[side])
            chunks[side].append(per_chunk[side])
            cpu[side].append(used[side])
        print(f"    rep {rep + 1}/{a.reps} " + "  ".join(f"{s} {total[s]:.3f} s ({n / total[s]:.0f} ops/s)"
                                                      for s in sides), file=sys.stderr)
    for base in done:
        shutil.rmtree(base)
    ratio_py = [p / m for m, p in zip(times["memspec"], times["python"])]
    ratio_floor = [m / f for m, f in zip(times["memspec"], times["floor"])]
    ratio_each = [m / f for m, f in zip(times["memspec"], times.get("floor-each", []))]
    # Noise-filtered totals: for each chunk, the fastest of the reps, summed over the chunks.
    best = {s: sum(min(rep[c] for rep in chunks[s]) for c in range(len(bounds))) for s in sides}
    results["mixed"] = {
        "best_chunk_seconds": best, "chunk_seconds": chunks,
        "ops": n, "files": a.files, "seed": a.seed, "chunk": a.chunk, "counts": wl["counts"],
        "writes_with_fsync": sum(wl["counts"][k] for k in WRITES),
        "floor_impl": "C" if floor_cmd else "Python",
        "seconds": times, "ops_per_s": {k: [n / t for t in v] for k, v in times.items()},
        "backend_cpu_seconds": cpu, "seconds_by_command": by_kind,
        "speedup_vs_python": ratio_py, "memspec_over_floor": ratio_floor,
        "memspec_over_floor_each": ratio_each, "problems": problems,
    }


def run_read(env: Env, results: dict, key: str, label: str, setup, inp: dict, check,
             revision: str, same_text: bool) -> None:
    """Times one read-only request against both backends, each kept alive across reps, memspec
    under `revision`. With `same_text`, the two reply texts must be identical."""
    a = env.args
    base = env.work / key
    setup(base / "memories")
    os.sync()
    procs = {w: env.start(w, base, revision) for w in ("memspec", "python")}
    times = {"memspec": [], "python": []}
    cpu = {"memspec": [], "python": []}
    outputs = {}
    problems = []
    print(f"[{label}] {a.reps} reps (+1 untimed warm-up each)", file=sys.stderr)
    try:
        for w, p in procs.items():  # warm-up: page cache, lazy imports, allocator
            p.timed([inp])
        for rep in range(a.reps):
            for w in (["memspec", "python"] if rep % 2 == 0 else ["python", "memspec"]):
                wait_quiet(a.max_busy, a.quiet_timeout)
                elapsed, replies = procs[w].timed([inp])
                times[w].append(elapsed)
                cpu[w].append(procs[w].last_cpu)
                reply = json.loads(replies[0])
                text = content_text(reply)
                why = check(reply, text)
                if why:
                    problems.append(f"{w}: {why}")
                outputs[w] = (len(replies[0]), hashlib.sha256(text.encode()).hexdigest())
                print(f"    rep {rep + 1}/{a.reps} {w:8s} {elapsed:8.3f} s", file=sys.stderr)
    finally:
        for p in procs.values():
            p.close()
    identical = outputs["memspec"][1] == outputs["python"][1]
    if same_text and not identical:
        problems.append(f"the reply texts differ ({ {w: o[0] for w, o in outputs.items()} } bytes), "
                        "so the two sides did not do the same work")
    results[key] = {
        "revision": revision,
        "seconds": times, "backend_cpu_seconds": cpu, "reply_bytes": {w: o[0] for w, o in outputs.items()},
        "identical_text": identical,
        "python_over_memspec": [p / m for m, p in zip(times["memspec"], times["python"])],
        "problems": sorted(set(problems)),
    }


def setup_big(memories: Path, seed: int) -> Path:
    memories.mkdir(parents=True, exist_ok=True)
    big = memories / "big.txt"
    if not big.exists():
        big.write_text(big_file_text(seed))
    return big


def run_big_view(env: Env, results: dict) -> None:
    def check(reply, text):
        if reply.get("is_error"):
            return f"error reply: {text[:200]}"
        if text.count("\n") != BIG_LINES:
            return f"{text.count(chr(10))} newlines, expected {BIG_LINES}"
        return None

    run_read(env, results, "big_view", f"2 view 999,999-line file (memspec {WHOLE_VIEW_REVISION})",
             lambda m: setup_big(m, env.args.seed),
             {"command": "view", "path": "/memories/big.txt"}, check, WHOLE_VIEW_REVISION, True)
    results["big_view"]["file_bytes"] = (env.work / "big_view" / "memories" / "big.txt").stat().st_size


def run_wide_list(env: Env, results: dict) -> None:
    def setup(memories: Path):
        memories.mkdir(parents=True, exist_ok=True)
        rng = random.Random(env.args.seed + 1)
        for i in range(WIDE_FILES):
            (memories / f"note-{i:05d}.md").write_text(words(rng, 5, 80) + "\n")

    def check(reply, text):
        if reply.get("is_error"):
            return f"error reply: {text[:200]}"
        if text.count("\n") != WIDE_FILES + 1:  # header, the folder's own line, one per file
            return f"{text.count(chr(10))} newlines, expected {WIDE_FILES + 1}"
        return None

    run_read(env, results, "wide_list", f"3 list 10,000 files (memspec {env.args.revision})", setup,
             {"command": "view", "path": "/memories"}, check, env.args.revision, False)


def spawn_timed(argv: list[str]) -> tuple[float, float]:
    """Runs argv with stdout on /dev/null; returns (wall seconds, user+sys CPU seconds of the
    child). posix_spawn + wait4 keeps the parent's own cost out of the way."""
    devnull = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=devnull)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv[:2]} exited with {os.waitstatus_to_exitcode(status)}")
    return wall, ru.ru_utime + ru.ru_stime


def run_call_vs_cat(env: Env, results: dict) -> None:
    a = env.args
    memories = env.work / "big_view" / "memories"
    big = setup_big(memories, a.seed)
    cmds = {
        "memspec": [env.memspec, "call", "--revision", WHOLE_VIEW_REVISION,
                    json.dumps({"command": "view", "path": "/memories/big.txt"}), "--memories", str(memories)],
        "cat": [shutil.which("cat") or "/bin/cat", "-n", str(big)],
    }
    wall = {"memspec": [], "cat": []}
    cpu = {"memspec": [], "cat": []}
    runs = a.call_runs
    print(f"[4] memspec call ({WHOLE_VIEW_REVISION}) vs cat -n: {runs} runs each (+2 warm-up), interleaved",
          file=sys.stderr)
    for c in cmds.values():
        for _ in range(2):
            spawn_timed(c)
    for i in range(runs):
        wait_quiet(a.max_busy, a.quiet_timeout)
        for w in (["memspec", "cat"] if i % 2 == 0 else ["cat", "memspec"]):
            t, c = spawn_timed(cmds[w])
            wall[w].append(t)
            cpu[w].append(c)
    # Same bytes as `cat -n` apart from the header line?
    m_out = subprocess.run(cmds["memspec"], capture_output=True, check=True).stdout
    c_out = subprocess.run(cmds["cat"], capture_output=True, check=True).stdout
    body = m_out.split(b"\n", 1)[1] if b"\n" in m_out else b""
    identical = body.rstrip(b"\n") == c_out.rstrip(b"\n")
    problems = [] if identical else [
        f"memspec's output after its header ({len(body)} bytes) is not `cat -n`'s ({len(c_out)} bytes): "
        "the two processes did not do the same work"]
    results["call_vs_cat"] = {
        "revision": WHOLE_VIEW_REVISION, "problems": problems,
        "seconds": wall, "cpu_seconds": cpu,
        "memspec_over_cat": [m / c for m, c in zip(wall["memspec"], wall["cat"])],
        "memspec_over_cat_cpu": [m / c for m, c in zip(cpu["memspec"], cpu["cat"])],
        "body_identical_to_cat_n": identical,
        "file_bytes": big.stat().st_size,
    }
    if a.hyperfine and shutil.which("hyperfine"):
        q = lambda argv: " ".join("'" + x.replace("'", "'\\''") + "'" for x in argv)
        r = subprocess.run(["hyperfine", "-N", "--warmup", "3", "--runs", str(max(10, runs)),
                            "--output=null", "--export-json", str(env.work / "hyperfine.json"),
                            "-n", "memspec call", q(cmds["memspec"]), "-n", "cat -n", q(cmds["cat"])],
                           capture_output=True, text=True)
        if r.returncode == 0:
            hf = json.loads((env.work / "hyperfine.json").read_text())
            results["call_vs_cat"]["hyperfine"] = {x["command"]: {"median": x["median"], "min": x["min"],
                                                                 "max": x["max"]} for x in hf["results"]}
        else:
            print(f"hyperfine failed: {r.stderr}", file=sys.stderr)


SYSCALLS = "fsync,fdatasync,sync_file_range,rename,renameat,renameat2,link,linkat,unlink,unlinkat,flock"


def wait_attached(tracer: subprocess.Popen, timeout: float = 10.0) -> None:
    """Waits until strace says it has attached: calls made before would go uncounted, and the
    durability check would then fail for want of them."""
    import select
    deadline = time.monotonic() + timeout
    seen = b""
    while b"attached" not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([tracer.stderr], [], [], left)[0]:
            raise RuntimeError(f"strace did not attach within {timeout:.0f} s: {seen[-300:]!r}")
        chunk = os.read(tracer.stderr.fileno(), 4096)
        if not chunk:
            raise RuntimeError(f"strace exited before attaching: {seen[-300:]!r}")
        seen += chunk


def run_syscalls(env: Env, results: dict) -> None:
    """Counts the durability-relevant syscalls each side makes for the mixed workload (strace)."""
    a = env.args
    if not shutil.which("strace"):
        print("strace not found: skipping the syscall count", file=sys.stderr)
        return
    wl = make_workload(a.seed, a.files, a.ops)
    counts = {}
    problems = []
    print("[syscalls] mixed workload once per backend under strace -f -c", file=sys.stderr)
    for which in ("memspec", "python"):
        base = env.work / f"strace-{which}"
        (base / "memories").mkdir(parents=True)
        out = env.work / f"strace-{which}.txt"
        p = env.start(which, base)  # started without strace: count the timed part only
        p.call({"control": "hello"})
        _, pop = p.timed(wl["populate"])
        tracer = subprocess.Popen(["strace", "-f", "-c", "-o", str(out), "-e", f"trace={SYSCALLS}",
                                   "-p", str(p.proc.pid)], stderr=subprocess.PIPE)
        wait_attached(tracer)
        _, replies = p.timed(wl["ops"])
        tracer.send_signal(2)  # SIGINT: strace detaches and writes its summary
        tracer.wait()
        tracer.stderr.close()
        p.close()
        table = {}
        for line in out.read_text().splitlines():
            f = line.split()
            if len(f) >= 5 and f[-1] in SYSCALLS.split(",") and f[3].isdigit():
                table[f[-1]] = int(f[3])
        counts[which] = table
        if errors_in(replies):
            problems.append(f"{which}: {len(errors_in(replies))} error replies under strace, "
                            f"e.g. {errors_in(replies)[:2]}")
        shutil.rmtree(base)
    writes = sum(wl["counts"][k] for k in WRITES)
    # memspec's durability, as benches/README.md states it: each content write is one temp file,
    # fsynced, then renamed into place; a rename is one rename; nothing else is fsynced.
    m = counts.get("memspec", {})
    fsyncs = m.get("fsync", 0) + m.get("fdatasync", 0)
    renames = m.get("rename", 0) + m.get("renameat", 0) + m.get("renameat2", 0)
    want_renames = writes + wl["counts"]["rename"]
    if fsyncs != writes:
        problems.append(f"memspec made {fsyncs} fsync/fdatasync calls for {writes} content writes")
    if renames != want_renames:
        problems.append(f"memspec made {renames} renames for {writes} content writes and "
                        f"{wl['counts']['rename']} renames ({want_renames} expected)")
    results["syscalls"] = {"counts": counts, "ops": wl["counts"], "writes_with_fsync": writes,
                           "renames_expected": want_renames, "problems": problems}


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def sh(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return "?"


def loadavg() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


def machine(env: Env) -> dict:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(open("/proc/meminfo").readline().split()[1])
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except Exception:
        pass
    commit = sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = sh(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "Cargo.toml", "Cargo.lock"])
    pyver = sh([env.python, "-c", "import sys, importlib.metadata as m; "
                "print(sys.version.split()[0], 'anthropic', m.version('anthropic'))"])
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory": mem, "kernel": platform.release(),
        "filesystem": sh(["df", "--output=fstype", str(env.work)]).split()[-1] + f" ({env.work.parent})",
        "memspec": f"{sh([env.memspec, '--version'])} @ {commit}{' + uncommitted src changes' if dirty else ''}",
        "rustc": sh(["rustc", "--version"]),
        "python": pyver, "adapter": str(Path(env.adapter).resolve().relative_to(REPO))
        if Path(env.adapter).resolve().is_relative_to(REPO) else env.adapter,
    }


def report(results: dict, env: Env) -> str:
    a = env.args
    mach = results["machine"]
    out = []
    out.append(f"memspec benchmarks — {a.reps} reps per measurement, medians with [min–max]; "
               f"ratios are medians of per-rep ratios (runs interleaved). memspec follows revision "
               f"{a.revision} in sections 1, 3 and 5, and {WHOLE_VIEW_REVISION} (whole-file views) in 2 and 4.\n")
    out.append("| # | measurement | memspec | Python SDK helper | floor / `cat -n` | ratio | target |")
    out.append("|---|---|---|---|---|---|---|")
    if "mixed" in results:
        r = results["mixed"]
        ops = r["ops_per_s"]
        sp = r["speedup_vs_python"]
        fl = r["memspec_over_floor"]
        out.append(f"| 1 | mixed workload, {r['ops']} ops over {r['files']}+ files, ops/s (protocol v1) | "
                   f"{spread(ops['memspec'], rate)} | {spread(ops['python'], rate)} | "
                   f"{spread(ops['floor'], rate)} (fsync+rename floor, {r['floor_impl']}) | "
                   f"memspec **{med(sp):.2f}x** Python throughput [{min(sp):.2f}–{max(sp):.2f}]; "
                   f"memspec time = **{med(fl):.2f}x** floor [{min(fl):.2f}–{max(fl):.2f}] | "
                   f"≥{TARGET_PYTHON:g}x Python: {'met' if med(sp) >= TARGET_PYTHON else 'NOT met'} |")
        b = r["best_chunk_seconds"]
        nf = b["memspec"] / b["floor"]
        out.append(f"| 1 | same, noise-filtered: each chunk's fastest rep, summed; ops/s | {rate(r['ops'] / b['memspec'])} | "
                   f"{rate(r['ops'] / b['python'])} | {rate(r['ops'] / b['floor'])} | "
                   f"memspec {b['python'] / b['memspec']:.2f}x Python throughput; memspec time = "
                   f"**{nf:.2f}x** floor | ≤{TARGET_FLOOR:g}x floor: {'met' if nf <= TARGET_FLOOR else 'NOT met'} |")
        out.append(f"| 1 | same, seconds for the {r['ops']} timed ops | {spread(r['seconds']['memspec'], secs)} | "
                   f"{spread(r['seconds']['python'], secs)} | {spread(r['seconds']['floor'], secs)} | | |")
        if "pipe" in r["seconds"]:
            own = [m - f - q for m, f, q in zip(r["seconds"]["memspec"], r["seconds"]["floor"], r["seconds"]["pipe"])]
            own_b = b["memspec"] - b["floor"] - b["pipe"]
            out.append(f"| 1 | same, the protocol's round trips alone: `cat` echoing the {r['ops']} requests through "
                       f"the same client | | | {spread(r['seconds']['pipe'], secs)} | memspec time − floor − round "
                       f"trips = {spread(own, secs)} ({usecs(med(own) / r['ops'])} per op); noise-filtered "
                       f"{secs(own_b)}: memspec's work beyond the durable syscalls and the protocol | |")
        if "floor-each" in r["seconds"]:
            fe = r["seconds"]["floor-each"]
            fq = [e / f for e, f in zip(fe, r["seconds"]["floor"])]
            q = r["memspec_over_floor_each"]
            own = [m - e for m, e in zip(r["seconds"]["memspec"], fe)]
            out.append(f"| 1 | same, the least a backend behind the same client must do: the C floor answering one "
                       f"request line per timed op, and for a view reading the file whole or stat'ing every entry "
                       f"below the folder (no JSON, paths, locks or reply texts) | | | "
                       f"{spread(fe, secs)}, {med(fq):.2f}x the floor [{min(fq):.2f}–{max(fq):.2f}], "
                       f"{b['floor-each'] / b['floor']:.2f}x noise-filtered | memspec time = **{med(q):.2f}x** this "
                       f"[{min(q):.2f}–{max(q):.2f}], {b['memspec'] / b['floor-each']:.2f}x noise-filtered; memspec "
                       f"− this = {spread(own, secs)} ({usecs(med(own) / r['ops'])} per op): memspec's own work "
                       f"for the requests (parsing, paths, locks, reply texts) | |")
        ex = [(sum(p.values()) - p["view_folder"]) / (sum(m.values()) - m["view_folder"])
              for m, p in zip(r["seconds_by_command"]["memspec"], r["seconds_by_command"]["python"])]
        out.append(f"| 1 | same, leaving out the {r['counts']['view_folder']} folder views (sum of per-command times) | | | | "
                   f"memspec {med(ex):.2f}x Python throughput [{min(ex):.2f}–{max(ex):.2f}] | |")
        bc = r["backend_cpu_seconds"]
        out.append(f"| 1 | same, backend CPU time per op (user+sys, incl. the kernel's fsync work; the rest of the wall time is waiting for the disk) | "
                   f"{spread([c / r['ops'] for c in bc['memspec']], usecs)} | "
                   f"{spread([c / r['ops'] for c in bc['python']], usecs)} | "
                   f"{spread([c / r['ops'] for c in bc['floor']], usecs)}"
                   + (f"; behind the client {spread([c / r['ops'] for c in bc['floor-each']], usecs)}"
                      if "floor-each" in bc else "") + " | | |")
    if "big_view" in results:
        r = results["big_view"]
        q = r["python_over_memspec"]
        out.append(f"| 2 | `view` 999,999-line file ({r['file_bytes'] / 1e6:.1f} MB, no final newline), protocol v1, "
                   f"memspec {r['revision']} | "
                   f"{spread(r['seconds']['memspec'], secs)} | {spread(r['seconds']['python'], secs)} | | "
                   f"memspec **{med(q):.2f}x** faster [{min(q):.2f}–{max(q):.2f}]; fastest runs: "
                   f"{min(r['seconds']['python']) / min(r['seconds']['memspec']):.2f}x | |")
        out.append(f"| 2 | same, backend CPU time | {spread(r['backend_cpu_seconds']['memspec'], secs)} | "
                   f"{spread(r['backend_cpu_seconds']['python'], secs)} | | | |")
    if "wide_list" in results:
        r = results["wide_list"]
        q = r["python_over_memspec"]
        out.append(f"| 3 | `view /memories` of 10,000 files, protocol v1 | "
                   f"{spread(r['seconds']['memspec'], secs)} | {spread(r['seconds']['python'], secs)} | | "
                   f"memspec **{med(q):.2f}x** faster [{min(q):.2f}–{max(q):.2f}]; fastest runs: "
                   f"{min(r['seconds']['python']) / min(r['seconds']['memspec']):.2f}x | |")
        out.append(f"| 3 | same, backend CPU time | {spread(r['backend_cpu_seconds']['memspec'], secs)} | "
                   f"{spread(r['backend_cpu_seconds']['python'], secs)} | | | |")
    if "call_vs_cat" in results:
        r = results["call_vs_cat"]
        q = r["memspec_over_cat"]
        qc = r["memspec_over_cat_cpu"]
        out.append(f"| 4 | `memspec call --revision {r['revision']}` view of the 999,999-line file > /dev/null vs "
                   f"`cat -n`, whole process, wall | "
                   f"{spread(r['seconds']['memspec'], secs)} | | {spread(r['seconds']['cat'], secs)} | "
                   f"memspec = **{med(q):.2f}x** `cat -n` time [{min(q):.2f}–{max(q):.2f}]; fastest runs: "
                   f"{min(r['seconds']['memspec']) / min(r['seconds']['cat']):.2f}x | "
                   f"≤{TARGET_CAT:g}x: {'met' if med(q) <= TARGET_CAT else 'NOT met'} |")
        out.append(f"| 4 | same, CPU time (user+sys) of the process | "
                   f"{spread(r['cpu_seconds']['memspec'], secs)} | | {spread(r['cpu_seconds']['cat'], secs)} | "
                   f"{med(qc):.2f}x [{min(qc):.2f}–{max(qc):.2f}]; least CPU: "
                   f"{min(r['cpu_seconds']['memspec']) / min(r['cpu_seconds']['cat']):.2f}x | |")
    out.append("")
    if "mixed" in results:
        r = results["mixed"]
        c = r["counts"]
        out.append("Mixed workload composition (timed part): " + ", ".join(f"{k} {v}" for k, v in c.items())
                   + f"; {r['writes_with_fsync']} content writes (one fsync each on every side), seed {r['seed']}.")
    if "mixed" in results:
        r = results["mixed"]
        out.append("")
        out.append("Mixed workload by command (median over reps of the time spent in each command, wall, "
                   "request sent to reply read):\n")
        out.append("| command | count | memspec total | memspec per op | Python total | Python per op | Python/memspec |")
        out.append("|---|---|---|---|---|---|---|")
        for kind, count in r["counts"].items():
            m = med([x[kind] for x in r["seconds_by_command"]["memspec"]])
            p = med([x[kind] for x in r["seconds_by_command"]["python"]])
            if count:
                out.append(f"| {kind} | {count} | {secs(m)} | {usecs(m / count)} | {secs(p)} | {usecs(p / count)} | "
                           f"{p / m:.2f}x |")
        out.append("")
    if "big_view" in results:
        r = results["big_view"]
        out.append(f"Section 2: reply sizes {r['reply_bytes']} bytes; the two texts are "
                   f"{'identical' if r['identical_text'] else 'DIFFERENT'}.")
    if "wide_list" in results:
        r = results["wide_list"]
        out.append(f"Section 3: reply sizes {r['reply_bytes']} bytes, 10,002 lines each (texts differ by design: "
                   f"header wording and size format).")
    if "call_vs_cat" in results:
        r = results["call_vs_cat"]
        out.append(f"call_vs_cat: output after the header identical to `cat -n`: {r['body_identical_to_cat_n']}.")
        if "hyperfine" in r:
            hf = r["hyperfine"]
            out.append("Section 4 hyperfine cross-check (median): "
                       + ", ".join(f"{k} {secs(v['median'])}" for k, v in hf.items())
                       + f" = {hf['memspec call']['median'] / hf['cat -n']['median']:.2f}x")
    if "syscalls" in results:
        r = results["syscalls"]
        out.append(f"Durability check (strace -c over the timed mixed ops; {r['writes_with_fsync']} content writes, "
                   f"{r['ops']['rename']} renames): "
                   + "; ".join(f"{w}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                               for w, c in r["counts"].items())
                   + f". memspec must make one fsync per content write and {r['renames_expected']} renames: "
                   + ("checked." if not r["problems"] else "FAILED (see Problems)."))
    problems = [f"{k}: {p}" for k, v in results.items() if isinstance(v, dict) for p in v.get("problems", [])]
    out.append("Problems: " + ("none (every reply was a success and every final state matched the model)"
                               if not problems else "\n- " + "\n- ".join(problems)))
    out.append("")
    out.append("Machine: " + "; ".join(f"{k}: {v}" for k, v in mach.items())
               + f"; load average at start {results.get('load_start', '?')}, at end {loadavg()}")
    if QUIET["checks"]:
        out.append(f"Quiet-machine waits: {QUIET['checks']} checks (busy ≤ {a.max_busy:.0%} over 0.5 s), "
                   f"{QUIET['waited_s']:.0f} s waited, {QUIET['gave_up']} reps started busy after "
                   f"{a.quiet_timeout:.0f} s.")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------


def find_python() -> str:
    cands = [os.environ.get("MEMSPEC_BENCH_PYTHON"), str(REPO / ".ci/.venv/bin/python"),
             "/tmp/memspec-bench-venv/bin/python", sys.executable, "python3"]
    for c in cands:
        if not c or not shutil.which(c):
            continue
        r = subprocess.run([c, "-c", "from anthropic.tools import BetaLocalFilesystemMemoryTool"],
                           capture_output=True)
        if r.returncode == 0:
            return c
    sys.exit("no Python with `anthropic` found: run .ci/install-sdks, or pass --python")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller workload (100 files, 400 ops), 3 reps, 7 call runs")
    ap.add_argument("--reps", type=int, help="repetitions per measurement (default 5, quick 3)")
    ap.add_argument("--ops", type=int, help="timed ops in the mixed workload (default 2000)")
    ap.add_argument("--files", type=int, help="files populated before the mixed workload (default 300)")
    ap.add_argument("--call-runs", type=int, help="runs of each process in section 4 (default 21)")
    ap.add_argument("--seed", type=int, default=20250818)
    ap.add_argument("--revision", choices=REVISIONS, default=REVISIONS[0],
                    help="revision memspec follows in sections 1, 3 and 5 (2 and 4 always use "
                    f"{WHOLE_VIEW_REVISION}, which shows a whole file)")
    ap.add_argument("--chunk", type=int, default=50,
                    help="mixed workload: ops per chunk; chunks of the three sides are interleaved")
    ap.add_argument("--sections", default="1,2,3,4,5",
                    help="comma-separated subset of 1 (mixed), 2 (big view), 3 (10k listing), "
                    "4 (call vs cat -n), 5 (strace count of fsync/rename/link per side)")
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    ap.add_argument("--memspec", default=str((REPO / target).resolve() / "release/memspec"),
                    help="the memspec binary (default: the release build in $CARGO_TARGET_DIR or target/)")
    ap.add_argument("--no-build", action="store_true", help="do not run `cargo build --release` first")
    ap.add_argument("--python", help="Python with anthropic installed (default: .ci/.venv, then others)")
    ap.add_argument("--adapter", help="protocol v1 driver for the Python helper "
                    "(default adapters/python/memspec_adapter.py, else benches/py_driver.py)")
    ap.add_argument("--workdir", default=None, help="parent of the scratch folder (default: system temp); "
                    "must be a real disk for fsync to mean anything")
    ap.add_argument("--max-busy", type=float, default=0.2,
                    help="before each rep, wait until the machine is at most this busy (0-1; 1 = never wait)")
    ap.add_argument("--quiet-timeout", type=float, default=30,
                    help="longest wait for a quiet machine before a rep, in seconds")
    ap.add_argument("--hyperfine", action="store_true", help="also cross-check section 4 with hyperfine")
    ap.add_argument("--json", help="also write all raw numbers to this file")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args()
    args.reps = args.reps or (3 if args.quick else 5)
    args.ops = args.ops or (400 if args.quick else 2000)
    args.files = args.files or (100 if args.quick else 300)
    args.call_runs = args.call_runs or (7 if args.quick else 21)
    sections = {s.strip() for s in args.sections.split(",")}

    if not args.no_build:
        r = subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO)
        if r.returncode != 0:
            return r.returncode
    if not Path(args.memspec).exists():
        sys.exit(f"{args.memspec} not found (cargo build --release)")
    args.python = args.python or find_python()
    shared = REPO / "adapters/python/memspec_adapter.py"
    args.adapter = args.adapter or str(shared if shared.exists() else BENCHES / "py_driver.py")

    env = Env(args)
    results: dict = {}
    try:
        results["machine"] = machine(env)
        results["load_start"] = loadavg()
        if "1" in sections:
            run_mixed(env, results)
        if "2" in sections:
            run_big_view(env, results)
        if "3" in sections:
            run_wide_list(env, results)
        if "4" in sections:
            run_call_vs_cat(env, results)
        if "5" in sections:
            run_syscalls(env, results)
        text = report(results, env)
        print(text)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=2))
    finally:
        if args.keep:
            print(f"scratch kept at {env.work}", file=sys.stderr)
        else:
            shutil.rmtree(env.work, ignore_errors=True)
    # A section whose own check failed measured something else than it says: not a result.
    failed = [k for k, v in results.items() if isinstance(v, dict) and v.get("problems")]
    if failed:
        print(f"checks failed in: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
