"""Broken once: prints one log line on stdout when it starts, then behaves: it proxies the
reference backend (`memspec serve`), `reset` included. The line is buffered, as `print` is on a
pipe, so it leaves in one write with the first reply; or, in every other process (by its pid),
alone, a moment before it, as it does when the buffer is flushed at start: the processes take
turns, counted in the file LOG_LINE_TURNS names (by pid parity without it). Every process's first reply is preceded
by a line that is no reply: the run must quote that line, never the valid reply behind it, and
stop early instead of breaking every case the same way."""

import os
import subprocess
import sys
import time

import _proxy

MEMORIES = _proxy.memories_dir()

pending = "starting\n"


def alone():
    """Whether this process writes its log line alone: every other process does."""
    turns = os.environ.get("LOG_LINE_TURNS")
    if not turns:
        return os.getpid() % 2 == 1
    import fcntl

    with open(turns, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        n = len(f.read())
        f.write("x")
    return n % 2 == 1


ALONE = alone()
binary = _proxy.memspec_bin()
server = subprocess.Popen([binary, "serve", MEMORIES], stdin=subprocess.PIPE, stdout=subprocess.PIPE, encoding="utf-8")
for line in sys.stdin:
    server.stdin.write(line)
    server.stdin.flush()
    reply = server.stdout.readline()
    if not reply:
        break
    if pending and ALONE:
        sys.stdout.write(pending)
        sys.stdout.flush()
        time.sleep(0.2)
        pending = ""
    sys.stdout.write(pending + reply)
    sys.stdout.flush()
    pending = ""
