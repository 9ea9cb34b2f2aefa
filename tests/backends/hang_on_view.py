"""Broken: never answers a view (a deadlock): it just waits."""

import time

import _proxy


def handle(reference, tool_input):
    if tool_input.get("command") == "view":
        while True:
            time.sleep(3600)
    return None


_proxy.serve(handle)
