"""Broken: folder listings include hidden items (names starting with `.`)."""

import _listing
import _proxy

_proxy.serve(_listing.with_extra_entries(_proxy.memories_dir(), lambda name: name.startswith(".")))
