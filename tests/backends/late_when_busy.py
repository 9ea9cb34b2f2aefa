"""Correct, but late on a busy machine: every process started for a worker other than the first
(MEMSPEC_WORKER is not 0) takes 3 s to answer `view`, as a backend does whose machine is shared
with other workers' processes. With a --timeout under 3 s those calls time out with -j 2 and not
alone (`-j 1` runs on worker 0), which a recheck tells apart from a fault."""

import os
import time

import _proxy

busy = os.environ.get("MEMSPEC_WORKER", "0") != "0"


def handle(reference, tool_input):
    if busy and tool_input.get("command") == "view":
        time.sleep(3)
    return None


_proxy.serve(handle)
