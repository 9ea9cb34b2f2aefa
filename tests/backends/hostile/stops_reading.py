"""Hostile: answers the controls, the harness's look at its store (`view /memories`) and its
first other tool call, then never reads its stdin again (it sleeps forever) while the harness
sends it a request bigger than a pipe's buffer (64 KiB): a harness that writes the whole request
before it starts its timeout blocks in write() forever."""

import json
import sys
import time

import _hostile


def main():
    _hostile.started()
    reference = _hostile._proxy.Reference(_hostile.MEMORIES)
    looks_left = 1
    # One line at a time, no read-ahead: nothing of the big request is taken off the pipe.
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return
        request = json.loads(line)
        if "input" not in request:
            _hostile.send({"id": request.get("id"), "ok": request.get("control") == "reset"})
            continue
        answer = reference.call(request["input"])
        _hostile._proxy.reply(request["id"], answer["content"], answer["is_error"])
        if request["input"] == {"command": "view", "path": "/memories"} and looks_left:
            looks_left -= 1  # the harness's look after reset, before the case
            continue
        break
    while True:
        time.sleep(3600)


main()
