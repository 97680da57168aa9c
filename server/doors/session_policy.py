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
so, in its own words, rather than that it crashed: see `died_of_its_memory`. Or it may not
end at all: an app whose allocations fail may be left wedged (a thread it could not start,
a MemoryError caught inside its loop), alive but drawing nothing, holding its session and
its slot until the player gives up. `WedgeWatch` ends such an app as one out of memory: it
must be near its limit, and have left keys or a new size unanswered for WEDGED_AFTER_S.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from kismet_tui.door_env import OUT_OF_MEMORY

from ..token_bucket import TokenBucket
from .door_limits import near_its_memory_limit

INPUT_BYTES_PER_SECOND = 4 * 1024
INPUT_BURST = 16 * 1024
INPUT_BACKLOG = 16 * 1024
INPUT_RESUME = INPUT_BACKLOG // 2
# How often, at most, a drawing app's peak memory is looked at.
MEMORY_LOOK_EVERY_S = 1.0
# How long an app near its memory limit may leave the player's keys or a new size without
# drawing anything before the door ends it as out of memory. A live app answers within a
# frame; on a busy machine, within a second or two (a session's whole start-up, the most
# drawing it does, is given 5 s by the start queue, server/doors/door_starts.py). Longer
# only keeps a player looking at a frozen screen: an app so near its ceiling and silent
# is not coming back, and its player gets their seat back by logging in again.
WEDGED_AFTER_S = 5.0

log = logging.getLogger("kismet.doors")


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
            self.look_now(pid, now)

    def look_now(self, pid: int, now: float) -> bool:
        """Look whatever the last look's time (a judgement hangs on it): near or not."""
        self.looked_at = now
        self.near = near_its_memory_limit(pid)
        return self.near


class WedgeWatch:
    """Ends a session's app (`end()`, which kills its process group and has the door say
    it ran out of memory) that has come near its memory limit and then stopped answering.
    The door tells it what the app was asked (`asked`: keys, or a new size, went to it),
    when it drew (`drew`, which also looks at its memory, as MemoryLook does), and while it
    holds the app's output back itself (`holding`: a player on a slow line; then the app's
    silence is the door's own, and counts from when the door reads again).

    WEDGED_AFTER_S after the first thing it was asked since it last drew, the watch judges
    (`judged` counts it): an app near its limit (looked at then, not when it last drew)
    that has drawn nothing is ended; any other is left alone, however quiet: a player who
    types nothing, an app with nothing to draw, a key that changes nothing on the screen
    are all silence far from the limit. Its timer runs only after the player's input, so
    an idle session costs nothing. Where the system sets no address-space
    limit (macOS) there is no "near" (door_limits.near_its_memory_limit) and it never ends
    an app: nothing refuses the app an allocation there, so it cannot wedge at its limit,
    and server/doors/memory_watch.py ends it once it holds more."""

    def __init__(
        self,
        memory: MemoryLook,
        end: Callable[[], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.memory = memory
        self.end = end
        self.clock = clock
        self.pid: int | None = None
        self.asked_at: float | None = None  # when it was first asked since it last drew
        self.held = False
        self.judged = 0
        self.ended = False
        self._check: asyncio.TimerHandle | None = None

    def asked(self, pid: int | None) -> None:
        if pid is None or self.ended:
            return
        self.pid = pid
        if self.asked_at is None:
            self.asked_at = self.clock()
        if self._check is None:
            self._check = asyncio.get_running_loop().call_later(WEDGED_AFTER_S, self.judge)

    def drew(self, pid: int | None) -> None:
        self.asked_at = None
        self.memory.look(pid, self.clock())

    def holding(self, held: bool) -> None:
        if self.held and not held and self.asked_at is not None:
            self.asked_at = self.clock()
        self.held = held

    def stop(self) -> None:
        """The app has ended: nothing left to judge."""
        self.ended = True
        if self._check is not None:
            self._check.cancel()
            self._check = None

    def judge(self) -> None:
        """WEDGED_AFTER_S after it was asked (the loop's timer calls it), or later."""
        if self._check is not None:
            self._check.cancel()
            self._check = None
        if self.asked_at is None or self.pid is None or self.ended:
            return  # it drew since
        now = self.clock()
        waited = now - self.asked_at
        if self.held or waited < WEDGED_AFTER_S:
            # Asked again after it drew, or its output is held back: judge it in full time.
            left = WEDGED_AFTER_S if self.held else WEDGED_AFTER_S - waited
            self._check = asyncio.get_running_loop().call_later(left, self.judge)
            return
        self.judged += 1
        self.asked_at = None  # judged: the next key asks anew
        if self.memory.look_now(self.pid, now):
            log.warning(
                "a door session (pid %s) near its memory limit has drawn nothing for %.0f s "
                "since its player's input: ended as out of memory",
                self.pid,
                waited,
            )
            self.stop()
            self.end()


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
