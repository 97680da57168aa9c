"""A disk that fails on demand, under the store's writer (server.store.Disk), so the tests of a
full, read-only or failing disk run anywhere without root.

    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host: ...
    disk.fail("ENOSPC")        # every write from now on: no space left on device
    disk.fail("short")         # the next write takes all but 4 bytes, the one after: ENOSPC
    disk.heal()                # writes succeed again
"""

from __future__ import annotations

import errno
import os

from server.store import Disk


class FaultyDisk(Disk):
    def __init__(self):
        self.mode: str | None = None
        self.writes = 0
        self.refused = 0
        self._short_done = False

    def fail(self, mode: str) -> None:
        assert mode in ("short", "ENOSPC", "EROFS", "EIO")
        self.mode, self._short_done = mode, False

    def heal(self) -> None:
        self.mode = None

    def write(self, fd: int, data) -> int:
        self.writes += 1
        if self.mode == "short" and not self._short_done and len(data) > 4:
            self._short_done = True  # the kernel took part of it; the retry finds no room
            return os.write(fd, bytes(data[: len(data) - 4]))
        if self.mode is not None:
            self.refused += 1
            code = errno.ENOSPC if self.mode == "short" else getattr(errno, self.mode)
            raise OSError(code, os.strerror(code))
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        if self.mode == "EIO":
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        os.fsync(fd)
