"""Hostile: reads its first request, then forks a child that keeps stdin, stdout and stderr
open and sleeps for ever, and exits itself without answering. The harness never sees the end
of stdout (the child holds it): one that waits for that end rather than for the process waits
its whole timeout for every process it starts."""

import os
import sys
import time

import _hostile

_hostile.started()
sys.stdin.buffer.readline()
if os.fork() == 0:
    while True:
        time.sleep(3600)
sys.stderr.write("exits_leaving_stdout_open: exiting, my child keeps stdout\n")
sys.stderr.flush()
os._exit(0)
