"""Why a serial port could not be opened, in one line that says what to do.

pyserial's own message names the port three times and the error number twice
(``/dev/ttyUSB0: [Errno 2] could not open port /dev/ttyUSB0: [Errno 2] No such
file or directory: '/dev/ttyUSB0'``); the page's "Not followed" line, ``/health``
and the calibration wizard show this one instead. The reasons a person meets
in the first hour each get the step that fixes them; any other keeps pyserial's
words.

>>> import errno, serial
>>> why_not_opened("/dev/ttyUSB0", serial.SerialException(errno.ENOENT, "could not open port"))
'/dev/ttyUSB0: no such port: is the sensor board plugged in?'
>>> why_not_opened("/dev/ttyACM0", serial.SerialException(errno.EBUSY, "could not open port"))
'/dev/ttyACM0: in use by another program (a serial monitor?): close it'
"""

from __future__ import annotations

import errno

#: What a search that found no serial port at all says.
NO_PORT = "no sensor board found on any serial port: plug it in"

#: errno -> what the line says after the port's name.
REASONS = {
    errno.ENOENT: "no such port: is the sensor board plugged in?",
    errno.ENODEV: "no such port: is the sensor board plugged in?",
    errno.ENXIO: "no such port: is the sensor board plugged in?",
    errno.EACCES: (
        "permission denied: add yourself to the port's group "
        "(Debian, Ubuntu: sudo usermod -aG dialout $USER), then log in again"
    ),
    errno.EPERM: (
        "permission denied: add yourself to the port's group "
        "(Debian, Ubuntu: sudo usermod -aG dialout $USER), then log in again"
    ),
    errno.EBUSY: "in use by another program (a serial monitor?): close it",
    errno.ENOTTY: "not a serial port: name the board's port (serial://auto finds it)",
}


def _errno(exc: BaseException) -> int | None:
    """The error number, also where pyserial raised without one from a failed call
    (``Could not configure port: (25, 'Inappropriate ioctl for device')``)."""
    code = getattr(exc, "errno", None)
    if isinstance(code, int):
        return code
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause.args and isinstance(cause.args[0], int):
        return int(cause.args[0])
    return None


def why_not_opened(port: str, exc: BaseException) -> str:
    """``PORT: reason: what to do`` for an error opening ``port``."""
    code = _errno(exc)
    reason = REASONS.get(code) if code is not None else None
    return f"{port}: {reason or exc}"
