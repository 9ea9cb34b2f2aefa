"""Behaves (it is the reference backend, `memspec serve`), and first appends the MEMSPEC_WORKER
it was started with (`unset` without one) as a line to the file WORKER_LOG names: the way a
backend with a fixed database file would pick one store per worker of a `-j` run."""

import os

import _proxy

MEMORIES = _proxy.memories_dir()

with open(os.environ["WORKER_LOG"], "a") as log:
    log.write(os.environ.get("MEMSPEC_WORKER", "unset") + "\n")
binary = _proxy.memspec_bin()
os.execvp(binary, [binary, "serve", MEMORIES])
