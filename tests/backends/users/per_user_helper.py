"""The official Python helper (anthropic's BetaLocalFilesystemMemoryTool), one folder per user:
what `memspec check --python ...:make --per-user` passes a user to. The id is hex-encoded into
the folder's name, so no two ids share one and none is a path.

    memspec check --area users --per-user --python tests/backends/users/per_user_helper.py:make
"""

import os

from anthropic.tools import BetaLocalFilesystemMemoryTool


def make(base, user):
    folder = os.path.join(base, "memories", "users", "u" + user.encode("utf-8", "surrogateescape").hex())
    os.makedirs(folder, exist_ok=True)
    return BetaLocalFilesystemMemoryTool(base_path=folder)
