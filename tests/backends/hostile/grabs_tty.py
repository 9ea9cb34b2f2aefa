"""Hostile: at start, it opens /dev/tty (the controlling terminal of its session) to write to the
user's terminal and turn its echo off, and records in MEMSPEC_TEST_LOG/tty.log whether that
worked (`opened` or `failed: ERRNO`). Then it serves correctly through the reference. A harness
that starts its backends in their own session, with no controlling terminal, makes it fail."""

import errno
import os

import _hostile


def grab():
    try:
        fd = os.open("/dev/tty", os.O_RDWR)
    except OSError as e:
        _hostile.log("tty.log", "failed: {}".format(errno.errorcode.get(e.errno, e.errno)))
        return
    _hostile.log("tty.log", "opened")
    try:
        os.write(fd, b"\r\nA BACKEND WROTE TO YOUR TERMINAL\r\n")
        import termios

        attrs = termios.tcgetattr(fd)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    except OSError:
        pass
    finally:
        os.close(fd)


grab()
_hostile.serve()
