"""One host per state folder: a lock held for the host's whole life.

Two hosts on one folder would both resume the same tables, rewrite each other's logs and
give out the same table ids. So a host holds an exclusive `flock` on `STATE_DIR/host.lock`
from its start to its stop, and writes its pid and port into the file for the words a second
host shows. The kernel drops a flock when its holder dies, so a killed host leaves nothing
to clean up: the next host starts at once. (The file itself stays; only the lock matters.)

Windows has no flock: there the lock is msvcrt's on one byte far past the text (Windows'
byte-range locks keep others from reading what they cover, and the holder's words must stay
readable), dropped by Windows too when its holder dies. The pid and port are written and
read with seek and write where os.pwrite and os.pread are missing (Windows).
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl

LOCK_NAME = "host.lock"
LOCKED_BYTE = 1 << 20  # (Windows) the byte held, well past the holder's line
HOST_PROGRAM = "kismet-host"


class StateFolderBusy(Exception):
    """Another host holds the folder's lock; the words name it and say what to do."""


class StateLock:
    """The held lock of one state folder; `release()` (or the process ending) frees it."""

    def __init__(self, fd: int, path: Path, program: str = HOST_PROGRAM) -> None:
        self._fd: int | None = fd
        self.path = path
        self.program = program

    @classmethod
    def acquire(cls, state_dir: str | Path, program: str = HOST_PROGRAM) -> StateLock:
        """The folder's lock, or StateFolderBusy naming the host that has it. `program` is
        the command this host runs in (`kismet` plays alone on an embedded host), so a
        second one is told which command to quit."""
        root = Path(state_dir)
        root.mkdir(parents=True, exist_ok=True)
        path = root / LOCK_NAME
        # No O_TRUNC: the holder's pid and port must survive a look by a second host.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
        try:
            _lock(fd)
        except BlockingIOError:
            holder, other = _holder(fd)
            os.close(fd)
            stop = "quit it first" if other != HOST_PROGRAM else "stop it first"
            raise StateFolderBusy(
                f"Another {other} ({holder}) is using the state folder {root}: "
                f"{stop}, or give this one --state-dir."
            ) from None
        except OSError:
            os.close(fd)
            raise
        lock = cls(fd, path, program)
        lock.write(port=None)
        return lock

    def write(self, port: int | None) -> None:
        """Record this process (and its port, once it listens) for a second host to name."""
        if self._fd is None:
            return
        text = f"pid {os.getpid()}" + (f", port {port}" if port is not None else "")
        text += (f" ({self.program})" if self.program != HOST_PROGRAM else "") + "\n"
        os.ftruncate(self._fd, 0)
        if hasattr(os, "pwrite"):
            os.pwrite(self._fd, text.encode(), 0)
        else:
            os.lseek(self._fd, 0, os.SEEK_SET)
            os.write(self._fd, text.encode())

    def release(self) -> None:
        if self._fd is not None:
            if sys.platform == "win32":  # (Windows frees it on close too, but not at once)
                os.lseek(self._fd, LOCKED_BYTE, os.SEEK_SET)
                msvcrt.locking(self._fd, msvcrt.LK_UNLCK, 1)
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None


def _lock(fd: int) -> None:
    """The exclusive lock of the file `fd`, or BlockingIOError when another process has it."""
    if sys.platform == "win32":
        os.lseek(fd, LOCKED_BYTE, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:  # EACCES (or EDEADLOCK): another process holds the byte
            if exc.errno not in (errno.EACCES, errno.EDEADLK):
                raise
            raise BlockingIOError("the state folder's lock is held") from None
    else:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _holder(fd: int) -> tuple[str, str]:
    """("pid 4242, port 7717", its command) as the holder wrote them (a command other than
    kismet-host after them in brackets), or why they cannot be said."""
    try:
        if hasattr(os, "pread"):
            data = os.pread(fd, 200, 0)
        else:
            os.lseek(fd, 0, os.SEEK_SET)
            data = os.read(fd, 200)
        text = data.decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    program = HOST_PROGRAM
    if text.endswith(")") and " (" in text:
        text, program = text[:-1].rsplit(" (", 1)
    return text or "it has not said its pid yet", program
