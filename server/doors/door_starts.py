"""How many door sessions start at once: a storm of logins is let in a few at a time.

A door session spends about a tenth of a second of CPU from its fork (or new interpreter) to
its lobby drawn, when it starts alone. A hundred starting at once take several times that
each (they take turns on the same cores and evict each other's caches, and the host answers
all of them at once), so every one of them waits for all of them: 120 logins took 25-30 s
to their lobbies on two busy cores. Let in a few at a time, each starts at its own cost and
the last lobby is drawn when the sum of those is spent.

So the doors share one StartQueue (held by their SessionSlots): at most `limit` sessions
(32 per core by default, `kismet-host --max-starting N`) are in their start-up at once;
the others wait their turn, in
the order they came, with their ssh channel open and a line on their terminal saying how
many are ahead of them. A session's start-up is from its turn (then it is forked) to the
first frame it draws after the host has answered its table list (its lobby), and never
longer than START_TURN_SECONDS: a session that never gets there (a client that cannot
reach the host, say) holds nobody up for longer. A session that ends gives its turn back
at once, whether it had it or was waiting for it.

Why 32 per core, not one or two: a start is a chain of steps (fork, connect, hello, the
table list, the drawing), each waiting for the CPU behind the machine's other work, so one
start takes most of a second of wall time for its tenth of a second of CPU; and the
scheduler shares the cores among running processes, so a few sessions starting get a few
shares. Measured on a 2-core machine at load 8-15 (benchmarks/doors.py --storm 120): 4 at
once drew the last lobby at 33.7 s, 16 at once at 12.8 s, no limit at 12.2 s; on the same
machine with nothing else running, 16 at once at 15.6 s, 64 at once at 10.3 s, no limit at
10.4 s. A limit a storm of a hundred does not reach costs it nothing; it is there so that a
far larger storm does not start hundreds at once.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable

# The most a session's start-up may hold a turn (a session alone reaches its lobby in a
# quarter of a second; a crowded machine takes some seconds).
START_TURN_SECONDS = 5.0
STARTS_PER_CORE = 32


def default_limit() -> int:
    """Sessions starting at once on this machine: STARTS_PER_CORE for each core."""
    return STARTS_PER_CORE * (os.cpu_count() or 1)


class StartTurn:
    """One session's place in the queue, then its turn: `wait` for it, tell it when the host
    has `listed` the tables for it and when it `drew`, and `end` it (at any time, as often
    as wanted)."""

    def __init__(self, queue: StartQueue) -> None:
        self.queue = queue
        self.granted = asyncio.get_running_loop().create_future()  # its turn came (or it ended)
        self.told: Callable[[int], None] | None = None
        self.starting = False  # holds one of the queue's turns now
        self.ended = False
        self.was_listed = False
        self._limit: asyncio.TimerHandle | None = None

    async def wait(self, told: Callable[[int], None] | None = None) -> None:
        """Until this session's turn (or its end); `told(ahead)` whenever the number of
        sessions ahead of it changes, while it waits (not when its turn comes at once)."""
        self.told = told
        self.queue.place(self)
        try:
            await asyncio.shield(self.granted)
        except asyncio.CancelledError:
            self.end()
            raise

    def begin(self) -> None:
        """Its turn: its start-up may run, at most START_TURN_SECONDS."""
        self.starting = True
        self._limit = asyncio.get_running_loop().call_later(START_TURN_SECONDS, self.end)
        if not self.granted.done():
            self.granted.set_result(None)

    def listed(self) -> None:
        """The host has answered this session's table list: the frame it draws next is its
        lobby."""
        self.was_listed = True

    def drew(self) -> None:
        """The session drew something: past its table list, its start-up is over."""
        if self.was_listed:
            self.end()

    def end(self) -> None:
        if self.ended:
            return
        self.ended = True
        if self._limit is not None:
            self._limit.cancel()
            self._limit = None
        if not self.granted.done():
            self.granted.set_result(None)
        self.queue.release(self)


class StartQueue:
    """The door sessions in their start-up (at most `limit`, 0: no limit) and those waiting
    for a turn, first come first served."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = default_limit() if limit is None else limit
        self.starting = 0
        self.waiting: deque[StartTurn] = deque()

    def turn(self) -> StartTurn:
        """A new session's turn, to `wait` for."""
        return StartTurn(self)

    def place(self, turn: StartTurn) -> None:
        if turn.ended or turn.starting or turn in self.waiting:
            return
        if not self.waiting and self._room():
            self._begin(turn)
            return
        self.waiting.append(turn)
        self._tell(turn, len(self.waiting) - 1 + self.starting)

    def release(self, turn: StartTurn) -> None:
        if turn.starting:
            turn.starting = False
            self.starting -= 1
        elif turn in self.waiting:
            self.waiting.remove(turn)
        while self.waiting and self._room():
            self._begin(self.waiting.popleft())
        for ahead, waiting in enumerate(self.waiting):  # (each door says only a change)
            self._tell(waiting, ahead + self.starting)

    def _room(self) -> bool:
        return self.limit <= 0 or self.starting < self.limit

    def _begin(self, turn: StartTurn) -> None:
        self.starting += 1
        turn.begin()

    @staticmethod
    def _tell(turn: StartTurn, ahead: int) -> None:
        if turn.told is not None:
            turn.told(ahead)
