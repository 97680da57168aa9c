"""A door session's memory, watched where the system will not limit it (macOS, the BSDs).

On Linux each session runs under a hard address-space limit (server/doors/door_limits.py), and
an app that reaches it ends with door_env.OUT_OF_MEMORY. macOS does not enforce RLIMIT_AS,
so there the door starts a MemoryWatch with the session instead: once a second it reads the
session's resident memory (/proc where there is one, else POSIX's `ps -o rss=`) and, past
the same limit, calls `over()`, which kills the session; the door then says the same words as
for a session out of memory on Linux. Resident memory is what the app really holds, never
more than it maps, so the watch is never stricter than Linux's limit. (Nor is there an app
wedged at its limit here, which Linux's doors end when it stops answering
(session_policy.WedgeWatch): nothing refuses the app an allocation, so it grows on until
this watch ends it.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger("kismet.doors")

WATCH_SECONDS = 1.0


async def resident_bytes(pid: int) -> int | None:
    """Process `pid`'s resident memory in bytes, or None when it is gone (or cannot be read)."""
    try:
        # (/proc is the kernel's memory, not a disk: the read never waits.)
        with open(f"/proc/{pid}/status", "rb") as status:  # noqa: ASYNC230
            for line in status:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024
            return None  # (a zombie has no VmRSS: it has ended)
    except (OSError, ValueError):
        pass  # no /proc here (macOS), or the process has gone: ps tells which
    try:
        ps = await asyncio.create_subprocess_exec(
            "ps",
            "-o",
            "rss=",
            "-p",
            str(pid),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await ps.communicate()
    except OSError:
        return None
    text = out.decode(errors="replace").strip()
    return int(text) * 1024 if text.isdigit() else None


class MemoryWatch:
    """Look at process `pid` every WATCH_SECONDS until it ends or `stop()`; `over()` is called
    once, the first time it holds more than `limit` bytes."""

    def __init__(self, pid: int, limit: int, over: Callable[[], None]) -> None:
        self.pid, self.limit, self.over = pid, limit, over
        self.peak = 0
        self._task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            used = await resident_bytes(self.pid)
            if used is None:
                return
            self.peak = max(self.peak, used)
            if used > self.limit:
                log.warning(
                    "a door session (pid %s) holds %d MB, over its %d MB: ended",
                    self.pid,
                    used >> 20,
                    self.limit >> 20,
                )
                self.over()
                return

    def stop(self) -> None:
        self._task.cancel()
