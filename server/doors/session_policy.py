"""What both doors apply to a running session, written once so that ssh and the browser
cannot disagree: how fast a player's input reaches their app, how much of it may wait, and
whether a session that ended died of its memory limit.

Input. Each session's input is paid for from one token bucket (server/token_bucket.py) of
INPUT_BURST bytes, refilled at INPUT_BYTES_PER_SECOND: a person types under 30 keys a
second, and a mouse drag sends some 60 to 100 reports a second of about 12 bytes; a pasted
name or a quick run of keys goes at once. What comes faster waits, so an app never gets
thousands of keys at once (each is an event it queues). (The two doors kept two buckets
before, at 2 KiB/s after 8 KiB for ssh and 4 KiB/s after 16 KiB for the browser; the
browser's, the more generous, is kept for both, so no player of either is slowed where they
were not before, and a flood is still bounded.)

Backlog. Input the app has not taken yet waits at the door; past INPUT_BACKLOG bytes the
door stops reading the player's side (ssh's window, the browser's socket), so a flood waits
at its sender and no process grows with it, and reads again once the app has taken the
backlog down to INPUT_RESUME (half of it).

Memory. A session's app may end at its memory limit in several ways, and the door then says
so, in its own words, rather than that it crashed: see `died_of_its_memory`.
"""

from __future__ import annotations

import time

from kismet_tui.door_env import OUT_OF_MEMORY

from ..token_bucket import TokenBucket
from .door_limits import near_its_memory_limit

INPUT_BYTES_PER_SECOND = 4 * 1024
INPUT_BURST = 16 * 1024
INPUT_BACKLOG = 16 * 1024
INPUT_RESUME = INPUT_BACKLOG // 2
# How often, at most, a drawing app's peak memory is looked at.
MEMORY_LOOK_EVERY_S = 1.0


def input_budget() -> TokenBucket:
    """A new session's budget for its player's input, in bytes, on the monotonic clock."""
    return TokenBucket(INPUT_BURST, INPUT_BYTES_PER_SECOND, time.monotonic())


def stop_reading(waiting: int) -> bool:
    """With `waiting` bytes of input not yet taken by the app, the door stops reading."""
    return waiting > INPUT_BACKLOG


def read_again(waiting: int) -> bool:
    """With `waiting` bytes left, a door that stopped reading reads again."""
    return waiting <= INPUT_RESUME


class MemoryLook:
    """Whether a session's app has come near its memory limit (its peak over 80% of it),
    looked at while it draws, at most once every MEMORY_LOOK_EVERY_S: an app that dies at
    its limit may have no words left to say so (its error handling needs memory too)."""

    __slots__ = ("near", "looked_at")

    def __init__(self) -> None:
        self.near = False
        self.looked_at = -MEMORY_LOOK_EVERY_S

    def look(self, pid: int | None, now: float) -> None:
        if pid is not None and now - self.looked_at >= MEMORY_LOOK_EVERY_S:
            self.looked_at = now
            self.near = near_its_memory_limit(pid)


def died_of_its_memory(
    code: int, *, watched_over: bool, near_limit: bool, last_words: bytes = b""
) -> bool:
    """A session's app that ended with `code` (a negative code: killed by that signal) died
    of its memory limit: it said so itself (door_env.OUT_OF_MEMORY, which the client's
    MemoryError ends with), the door's watch ended it past its limit (`watched_over`, where
    the system sets none: server/doors/memory_watch.py), its last words on stderr name
    memory (C libraries' "Cannot allocate memory"; ssh's app has no stderr of its own), or
    it ended any other way but well after coming near its limit (`near_limit`, a
    MemoryLook's): an allocation failing where no MemoryError can be raised (C code, the
    stack growing) ends in a crash or a later error.

    A crash far from the limit is a crash: the browser door called every SIGSEGV and
    SIGABRT a lack of memory, wherever the app was, where the ssh door said it crashed; the
    ssh door's reading is kept, so a real crash is not hidden behind the wrong words."""
    if code == 0:
        return False
    if code == OUT_OF_MEMORY or watched_over or near_limit:
        return True
    return b"memory" in last_words.lower()
