"""A ready-made memory tool instance (not a class, not a factory) whose store `clear_all_memory()`
cannot wipe: the adapter cannot reset it, so it must answer `reset` with `ok: false` and memspec
start a process per case. Run through the Python adapter: `--python
tests/backends/ready_made_dict.py:tool`."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python", "examples"))

from dict_backend import DictMemoryTool  # noqa: E402


class NoClear(DictMemoryTool):
    def clear_all_memory(self):  # the SDK base class's default: not implemented
        raise NotImplementedError


tool = NoClear()
