"""Broken: answers with its own counter as the id, which starts at 0 instead of echoing the
request's id."""

import json

import _proxy

MEMORIES = _proxy.memories_dir()


def main():
    reference = _proxy.Reference(MEMORIES)
    counter = 0
    for request in _proxy.requests():
        if "input" not in request:
            _proxy.refuse_control(request)
            continue
        answer = reference.call(request["input"])
        _proxy.send_line(json.dumps({"id": counter, "content": answer["content"], "is_error": answer["is_error"]}))
        counter += 1


main()
