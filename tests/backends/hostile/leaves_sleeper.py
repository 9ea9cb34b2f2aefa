"""Hostile: starts a child that sleeps for ever (its stdio on /dev/null, in the backend's own
process group), then serves correctly through the reference. It answers no control, so the
harness starts one process per case, closes its stdin at the end of the case, and the backend
exits at once, gracefully: the sleeper, a grandchild of memspec, is left behind unless the
harness kills the whole group anyway."""

import _hostile

_hostile.spawn_detached("memspec-hostile-sleeper", "import time\nwhile True: time.sleep(3600)")
_hostile.serve(keep_alive=False)
