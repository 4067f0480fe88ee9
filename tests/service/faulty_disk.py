"""``serve`` with a disk that can fill up: a write failure injected at the file layer.

``python -m tests.service.faulty_disk FLAG serve ARGS…`` runs the real
``oware-companion serve`` (:func:`companion.commands.serve.main`), except that
while the file ``FLAG`` exists every ``os.write`` and ``os.fsync`` on a file
under the data directory's ``sessions/`` folder fails with ``ENOSPC`` (and
writes that were under way are cut short, as a real full disk cuts them), as
on a disk with no room left. Removing ``FLAG`` gives the room back. The fault
tests use it where mounting a small tmpfs is not allowed.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path


def _inject(flag: Path) -> None:
    real_write, real_fsync = os.write, os.fsync

    def full(fd: int) -> bool:
        if not flag.exists():
            return False
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return False
        return "/sessions/" in target

    def write(fd: int, data: bytes | memoryview, /) -> int:
        if full(fd):
            if len(data) > 8:  # a real full disk may take part of it first
                real_write(fd, bytes(data[:5]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def fsync(fd: int) -> None:
        if full(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    os.write = write  # type: ignore[assignment]
    os.fsync = fsync  # type: ignore[assignment]


def main() -> int:
    flag = Path(sys.argv[1])
    _inject(flag)
    from companion.commands.serve import main as serve_main

    return serve_main(sys.argv[2:])


if __name__ == "__main__":
    raise SystemExit(main())
