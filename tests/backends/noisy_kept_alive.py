"""Broken: kept alive across cases (it answers `reset`), it logs every call to stderr and dies on
the first str_replace. The crash's report must quote the crashing case's stderr alone, not the
log of every case the process served before."""

import json
import sys

import _proxy


def main():
    reference = _proxy.Reference(_proxy.memories_dir())
    for request in _proxy.requests():
        if request.get("control") == "reset":
            # The harness restores the folder itself; the reference keeps no other state.
            _proxy.send_line(json.dumps({"id": request.get("id"), "ok": True}))
            continue
        if "input" not in request:
            _proxy.refuse_control(request)
            continue
        tool_input = request["input"]
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        sys.stderr.write("noisy: {} call {}\n".format(command, request["id"]) * 20)
        sys.stderr.flush()
        if command == "str_replace":
            sys.stderr.write("Traceback (most recent call last):\nKeyError: 'old_str'\n")
            sys.stderr.flush()
            sys.exit(1)
        answer = reference.call(tool_input)
        _proxy.reply(request["id"], answer["content"], answer["is_error"])


main()
