"""What one door session may cost this machine: its window size, its memory, its lifetime,
and how many sessions the doors hold at once; and what of the host's environment it is given.

The ssh and web doors each run a player's client as a process of its own on this machine.
Whatever the remote side sends, that process must not take the machine: its terminal size is
clamped, it runs under a hard address-space limit, it dies with the host (parent-death
signal) and with its session (the door kills its process group), and the doors together hold
at most `max_sessions` of them.

What other systems lack (`platform_lacks` says it in words at the host's start):
- macOS (and the BSDs) do not enforce RLIMIT_AS: there the session runs without it and
  server/doors/memory_watch.py ends it past the same limit instead, measured as resident memory;
  the parent-death signal is Linux's too (the door's process-group kill still ends a session);
- pidfds (Linux 5.3 and later) are what the warm parent's sessions are watched and signalled
  by (server/doors/warm_doors.py): without them each session starts a process of its own, which
  asyncio watches with waitpid (`--door-sessions spawn`);
- Windows runs no door at all (server/cli.py refuses --ssh and --web in words).
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys
from collections.abc import Mapping, Sequence

if sys.platform != "win32":
    import resource

from .door_starts import StartQueue

# A window larger than any real screen (a 4K monitor in a tiny font is about 480x135).
MAX_COLS = 500
MAX_ROWS = 200

# One session's address-space limit. A client process maps far more than it touches (the
# interpreter, Textual, the shared libraries): this is the ceiling on what it may map.
SESSION_ADDRESS_SPACE = 1024 * 1024 * 1024
# What a session costs in memory it really uses (PSS), for the default session cap.
SESSION_BUDGET = 64 * 1024 * 1024
_PR_SET_PDEATHSIG = 1


def clamp_size(cols: object, rows: object, default: tuple[int, int] = (80, 24)) -> tuple[int, int]:
    """A terminal size as a door may pass it on: whole numbers within 1..MAX, else `default`."""
    try:
        width, height = int(cols), int(rows)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return default
    if width <= 0 or height <= 0:
        return default
    return min(width, MAX_COLS), min(height, MAX_ROWS)


def address_space_limited() -> bool:
    """This system enforces RLIMIT_AS on a session (Linux); elsewhere its memory is watched."""
    return sys.platform.startswith("linux")


def has_pidfds() -> bool:
    """This system gives pidfds (Linux 5.3 and later): os.pidfd_open exists and works."""
    if not hasattr(os, "pidfd_open") or not hasattr(signal, "pidfd_send_signal"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as exc:  # ENOSYS before Linux 5.3; EPERM under some sandboxes
        return exc.errno not in (errno.ENOSYS, errno.EPERM)
    return True


def platform_lacks() -> list[str]:
    """What this system lacks for the doors' sessions, in words for the host's start."""
    lacks = []
    if not address_space_limited():
        lacks.append(
            "This system cannot limit a door session's address space (RLIMIT_AS): the "
            "host watches each session's memory instead and ends one past its limit."
        )
    if not has_pidfds():
        lacks.append(
            "This system has no pidfds: each ssh or web session starts a process of "
            "its own (a slower login)."
        )
    return lacks


def limit_session_child(
    address_space: int = SESSION_ADDRESS_SPACE,
    confinement: Sequence[Sequence[object]] | None = None,
) -> None:
    """Run in a door session's child between fork and exec (subprocess's preexec_fn): a hard
    address-space limit where the system enforces one (else the door watches its memory:
    server/doors/memory_watch.py), death when the host process goes, whatever the child is doing,
    and its confinement (server/doors/session_sandbox.py), which the interpreter it becomes
    keeps."""
    if address_space_limited():
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    die_with_parent()
    from .session_sandbox import confine

    confine(confinement)


def die_with_parent(parent: int | None = None) -> None:
    """Run in a child just forked: SIGKILL it when its parent goes (the parent-death signal).
    The parent may have died between the fork and this call, which the signal would then
    never tell: the child checks it still has `parent` (or, when None, is not yet adopted by
    init) and ends at once if not, rather than live on as an orphan."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the door's process-group kill still ends it with its session
    orphaned = os.getppid() != parent if parent is not None else os.getppid() == 1
    if orphaned:
        os._exit(1)


def near_its_memory_limit(pid: int) -> bool:
    """Process `pid` has mapped (at its peak) more than 80% of its address-space limit. An
    app near its limit may die of a crash rather than a MemoryError (an allocation failing
    in C code, or its stack unable to grow): looked at while it runs, this tells such an end
    from a plain crash. False when it cannot be told (the process is gone, or the system has
    no such limit: then server/doors/memory_watch.py ends the session itself)."""
    if not hasattr(resource, "prlimit"):  # (Linux only)
        return False
    try:
        limit = resource.prlimit(pid, resource.RLIMIT_AS)[0]
        with open(f"/proc/{pid}/status", "rb") as status:
            peak = next(
                int(line.split()[1]) * 1024 for line in status if line.startswith(b"VmPeak:")
            )
    except (OSError, ValueError, StopIteration):
        return False
    return limit != resource.RLIM_INFINITY and peak > 0.8 * limit


def default_max_sessions() -> int:
    """Door sessions this machine holds: half its memory at SESSION_BUDGET each (at least 8)."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # (AttributeError: no sysconf, Windows)
        return 64
    return max(8, pages // 2 // SESSION_BUDGET)


class SessionSlots:
    """The doors' sessions under one cap: `take` before a session's client starts, `give_back`
    when it has ended; and how many of them start at once (`starts`, server/doors/door_starts.py:
    `starting` at most, 32 per core by default). Shared by every door of one host."""

    def __init__(self, limit: int | None = None, starting: int | None = None) -> None:
        self.limit = default_max_sessions() if limit is None else limit
        self.taken = 0
        self.starts = StartQueue(starting)

    def take(self) -> bool:
        if self.limit > 0 and self.taken >= self.limit:
            return False
        self.taken += 1
        return True

    def give_back(self) -> None:
        self.taken = max(0, self.taken - 1)

    def refusal(self) -> str:
        return (
            f"The host is full: it holds {self.limit} players over ssh and the web, its "
            f"most. Please try again in a while."
        )


# What describes the host owner's own terminal, not the remote player's: left out, or the
# app would draw for the wrong terminal (truecolor where the player's has 256 colours, say).
THEIR_TERMINAL = (
    "COLUMNS",
    "LINES",
    "ROWS",
    "COLORTERM",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "VTE_VERSION",
    "WT_SESSION",
    "KITTY_WINDOW_ID",
    "TMUX",
    "STY",
    "NO_COLOR",
)
FROM_CLIENT = ("COLORTERM", "NO_COLOR")  # what the player's ssh may say about their terminal


def child_environment(term: str, client_env: Mapping[str, object] | None = None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TEXTUAL", "ITERM", "LC_TERMINAL")) and key not in THEIR_TERMINAL
    }
    for key in FROM_CLIENT:
        value = (client_env or {}).get(key)
        if isinstance(value, str) and len(value) < 64:
            env[key] = value
    env["TERM"] = term or "xterm-256color"
    env["PYTHONUTF8"] = "1"  # the screen is drawn in UTF-8 whatever the host's locale
    env["PYTHONUNBUFFERED"] = "1"
    # One BLAS thread (numpy's, for the solver): each more maps a buffer of its own, which
    # counts against the session's address-space limit, and a client needs none of them.
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"
    return env


# The most one message between the host and the door forker may hold (server/doors/warm_doors.py,
# server/doors/door_forker.py): a session's argv and environment, with room to spare.
FORKER_MESSAGE_BYTES = 256 * 1024
