"""Broken: prints a debugging line on stdout before each reply, so the harness reads a line that
is not JSON where the reply should be."""

import json

import _proxy

MEMORIES = _proxy.memories_dir()


def main():
    reference = _proxy.Reference(MEMORIES)
    for request in _proxy.requests():
        if "input" not in request:
            _proxy.refuse_control(request)
            continue
        _proxy.send_line("handling {}".format(json.dumps(request.get("input"))))
        answer = reference.call(request["input"])
        _proxy.reply(request["id"], answer["content"], answer["is_error"])


main()
