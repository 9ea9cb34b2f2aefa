"""Broken the way a backend with a fixed database file is under `-j`: every process it starts
keeps its memories in the same place, the folder SHARED_STORE names, whatever MEMSPEC_WORKER
says, and `reset` wipes it for all of them. Alone (`-j 1`) it is the reference (`memspec serve`
on that folder); on several workers one worker's `reset` wipes another worker's case. Its
memories are not in `{memories}`: check it with `--not-on-folder`."""

import os

import _proxy

store = os.path.join(os.environ["SHARED_STORE"], "memories")
os.makedirs(store, exist_ok=True)
binary = _proxy.memspec_bin()
os.execvp(binary, [binary, "serve", store])
