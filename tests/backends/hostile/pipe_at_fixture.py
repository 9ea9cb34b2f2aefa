"""Hostile: before answering a `reset` (the first one is the harness's probe, sent before the
first case's fixtures are made), it makes FIFOs at the names the suite's fixtures use
(memories/a.txt, memories/sub/a.txt). A harness that writes a fixture by opening its path for
writing blocks for ever: no reader ever comes."""

import os

import _hostile

FIFOS = ["a.txt", os.path.join("sub", "a.txt")]


def before_reset():
    for name in FIFOS:
        path = os.path.join(_hostile.MEMORIES, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.lexists(path):
            os.mkfifo(path)


_hostile.serve(before_reset=before_reset)
