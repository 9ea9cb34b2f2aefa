"""Hostile: starts a child that calls setsid() (a new session and process group of its own, its
stdio on /dev/null) and sleeps for ever, then serves correctly through the reference. Killing
the backend's process group does not reach it: only a cgroup (or a child subreaper that hunts
its orphans) could."""

import _hostile

_hostile.spawn_detached(
    "memspec-hostile-escaped", "import time\nwhile True: time.sleep(3600)", new_session=True
)
_hostile.serve(keep_alive=False)
