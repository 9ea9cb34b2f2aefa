"""Broken: exits before reading anything, saying why on stderr (a backend whose command is
wrong, or whose dependencies are missing)."""

import sys

sys.stderr.write("never_starts: cannot import my_storage\n")
sys.exit(1)
