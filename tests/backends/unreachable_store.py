"""Broken: the store behind the handler is unreachable, and its errors come back as plain
strings: every call is answered `Error: MCP call failed: connection refused` with `is_error`
false, the way a handler whose `execute()` returns `str` answers when its daemon is down.

Nothing is ever stored, so nothing can be lost, overwritten or reached outside /memories: the
one fault memspec may report above INFO is the missing flag (`errors.is-error-flag`), never a
DATA LOSS or a SECURITY finding read from a refusal it took for a success.
"""

import _proxy

REFUSAL = "Error: MCP call failed: <urlopen error [Errno 111] Connection refused>"

for request in _proxy.requests():
    if "input" not in request:
        _proxy.refuse_control(request)
        continue
    _proxy.reply(request["id"], REFUSAL, False)
