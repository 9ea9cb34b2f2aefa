"""Broken: writes every reply twice."""

import json
import sys

import _proxy

MEMORIES = _proxy.memories_dir()


def main():
    reference = _proxy.Reference(MEMORIES)
    for request in _proxy.requests():
        if "input" not in request:
            _proxy.refuse_control(request)
            continue
        answer = reference.call(request["input"])
        line = json.dumps({"id": request["id"], "content": answer["content"], "is_error": answer["is_error"]})
        sys.stdout.write(line + "\n" + line + "\n")
        sys.stdout.flush()


main()
