"""Hostile: starts a child that burns a CPU for ever (its stdio on /dev/null, in the backend's
own process group), then serves correctly through the reference, kept alive across cases. When
the harness closes its stdin the backend exits gracefully and the burner stays, unless the
harness kills the whole group anyway."""

import _hostile

_hostile.spawn_detached("memspec-hostile-burner", "while True: pass")
_hostile.serve()
