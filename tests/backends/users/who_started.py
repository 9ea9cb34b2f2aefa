"""A factory that notes whom it was started as, and in which state folder, then refuses every
call: for the test that both shapes of a backend of many users (a `{user}` command and a
`--per-user` factory) run as the same default user outside the users lane.

    memspec check --per-user --python tests/backends/users/who_started.py:make
    python3 tests/backends/users/who_started.py {user}        (protocol v1, the command shape)

Each start appends `user=<id> state=<yes|no>` to the file named by WHO_STARTED_LOG.
"""

import json
import os
import sys


def note(user, state):
    with open(os.environ["WHO_STARTED_LOG"], "a", encoding="utf-8") as log:
        log.write(f"user={user} state={'yes' if state and os.path.isdir(state) else 'no'}\n")


def make(user, state=None):
    note(user, state)

    def handle(tool_input):
        return {"content": "Error: this backend refuses every call", "is_error": True}

    return handle


if __name__ == "__main__":
    note(sys.argv[1], os.environ.get("MEMSPEC_STATE"))
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request.get("id"), "content": "Error: this backend refuses every call", "is_error": True}
        if "control" in request:
            reply = {"id": request.get("id"), "ok": False}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
