"""How many connections this host holds: what the machine allows it, not a fixed number.

A connection costs the host process file descriptors and, at worst, the send buffer it may
fill before it is dropped (protocol/limits.py MAX_SEND_BUFFER). Every connection is counted
at a door player's cost, since any of them may be one: a browser player holds its websocket,
the three pipes to its client process and that client's own connection back here; an ssh
player holds fewer (its socket, its pty and the connection back). The door sessions' own
processes are capped by memory in server/doors/door_limits.py.

At start, `kismet-host` raises its soft file-descriptor limit to the hard one (Linux gives
1,024 soft by default, often with a hard limit far above), then `connection_limit` takes the
smaller of what the descriptors and half the machine's memory allow.

Windows has neither `resource` nor `os.sysconf`: there no descriptor limit is raised (its
sockets are handles, not C descriptors, with no small per-process cap), WINDOWS_FDS stands
for one, and the memory is not known, so the descriptors alone decide.
"""

from __future__ import annotations

import os
import sys

from protocol import limits

if sys.platform != "win32":
    import resource

# A browser player's descriptors in the host process: websocket, stdin/stdout/stderr pipes of
# its client process, and the client's connection back to the host.
FDS_PER_CONNECTION = 5
# Descriptors kept for the rest: an open game log per table, the listening sockets, the
# standard streams, the state folder's lock and files, the pruning thread's directory scans.
RESERVED_FDS = limits.MAX_TABLES + 64
# What one connection may make the host hold at worst: its send buffer, and its share of
# the player, the buffers and the kernel's socket memory.
MEMORY_PER_CONNECTION = limits.MAX_SEND_BUFFER + 256 * 1024
# However little the machine reports, a host takes at least this many (a small game night).
MIN_CONNECTIONS = 16
# (Windows) the descriptors counted as this process's: room for about 1,600 connections.
WINDOWS_FDS = 8192


def raise_fd_limit() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (no privilege needed);
    return the soft limit in force after. An unlimited hard limit is taken as the kernel's
    per-process ceiling (fs.nr_open), which is what setrlimit accepts."""
    if sys.platform == "win32":
        return WINDOWS_FDS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else _nr_open()
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass  # keep the soft limit we have
    return soft


def _nr_open() -> int:
    try:
        with open("/proc/sys/fs/nr_open") as value:
            return int(value.read())
    except (OSError, ValueError):
        return 1024 * 1024


def physical_memory() -> int | None:
    """Bytes of memory on this machine, or None if the system does not say."""
    if not hasattr(os, "sysconf"):  # Windows
        return None
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return None


def connection_limit(fd_limit: int | None = None, memory: int | None = None) -> int:
    """Connections the host holds: what its descriptors (`fd_limit`, default this process's
    soft RLIMIT_NOFILE) and half of `memory` (default the machine's) allow, the smaller."""
    if fd_limit is None and sys.platform == "win32":
        fd_limit = WINDOWS_FDS
    elif fd_limit is None:
        fd_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if fd_limit == resource.RLIM_INFINITY:
            fd_limit = _nr_open()
    if memory is None:
        memory = physical_memory()
    by_fds = (fd_limit - RESERVED_FDS) // FDS_PER_CONNECTION
    by_memory = memory // 2 // MEMORY_PER_CONNECTION if memory is not None else by_fds
    return max(MIN_CONNECTIONS, min(by_fds, by_memory))
