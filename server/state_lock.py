"""One host per state folder: a lock held for the host's whole life.

Two hosts on one folder would both resume the same tables, rewrite each other's logs and
give out the same table ids. So a host holds an exclusive `flock` on `STATE_DIR/host.lock`
from its start to its stop, and writes its pid and port into the file for the words a second
host shows. The kernel drops a flock when its holder dies, so a killed host leaves nothing
to clean up: the next host starts at once. (The file itself stays; only the lock matters.)
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "host.lock"
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
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder, other = _holder(fd)
            os.close(fd)
            stop = "quit it first" if other != HOST_PROGRAM else "stop it first"
            raise StateFolderBusy(
                f"Another {other} ({holder}) is using the state folder {root}: "
                f"{stop}, or give this one --state-dir.") from None
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
        os.pwrite(self._fd, text.encode(), 0)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None


def _holder(fd: int) -> tuple[str, str]:
    """("pid 4242, port 7717", its command) as the holder wrote them (a command other than
    kismet-host after them in brackets), or why they cannot be said."""
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    program = HOST_PROGRAM
    if text.endswith(")") and " (" in text:
        text, program = text[:-1].rsplit(" (", 1)
    return text or "it has not said its pid yet", program
