"""Correct but slow: every call takes 0.2 s longer than the reference's. What a backend over a
remote store looks like to the harness; a case of many calls runs over a short --case-budget."""

import time

import _proxy


def handle(reference, tool_input):
    time.sleep(0.2)
    return None


_proxy.serve(handle)
