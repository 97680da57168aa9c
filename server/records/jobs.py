"""The records worker's queue: game ends first, then requests in fair turns among askers.

A game's end is written before any request waiting, whenever it arrives, so its players see
their ratings within a second however many pages are asked for (and the worker stops a
request running when a game arrives: `games_waiting`). Requests are taken in turns: each
asker's n-th waiting request has turn n past the turn being served when it came, and the
smallest turn goes first (in the order they came among equal turns). So one asker with many
requests waiting delays another's by at most one of theirs each, never by all of them.
An asker is whatever the caller names (server/records_request.py: the player, or their
address where the host caps addresses); None is an asker of one request.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

GAME, ASK, STOP = 0, 1, 2  # the kinds, in the order they are served


@dataclass
class Job:
    kind: int
    what: Any  # GAME: (log path, closed unfinished); ASK: the question
    then: Callable[[Any], None] | None
    asker: Hashable = None
    turn: int = 0
    seq: int = 0


class JobQueue:
    """A thread-safe queue of Jobs: put from the event loop, taken by the records' worker."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, Job]] = []
        self._seq = itertools.count()
        self._ready = threading.Condition()
        self._turn = 0  # the turn of the request taken last
        self._turns: dict[Hashable, int] = {}  # asker -> the turn of their last waiting request
        self._games = 0  # games put and not taken yet

    def put_game(self, what: Any, then: Callable[[Any], None] | None) -> None:
        with self._ready:
            self._games += 1
            self._push(Job(GAME, what, then, seq=next(self._seq)))

    def put_ask(
        self, question: Callable[..., Any], then: Callable[[Any], None], asker: Hashable = None
    ) -> None:
        with self._ready:
            turn = max(self._turn, self._turns.get(asker, 0) if asker is not None else 0) + 1
            if asker is not None:
                self._turns[asker] = turn
            self._push(Job(ASK, question, then, asker, turn, next(self._seq)))

    def put_stop(self) -> None:
        with self._ready:
            self._push(Job(STOP, None, None, seq=next(self._seq)))

    def put_back(self, job: Job) -> None:
        """A request stopped for a game goes back where it was: first among requests."""
        with self._ready:
            self._push(job)

    def get(self, timeout: float | None = None) -> Job | None:
        """The next job (None once `timeout` seconds passed with none)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._ready:
            while not self._heap:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._ready.wait(left)
            job = heapq.heappop(self._heap)[3]
            if job.kind == GAME:
                self._games -= 1
            elif job.kind == ASK:
                self._turn = max(self._turn, job.turn)
                if job.asker is not None and self._turns.get(job.asker) == job.turn:
                    del self._turns[job.asker]  # their last one: their next starts afresh
            return job

    def games_waiting(self) -> bool:
        """A game's end waits to be written (read by the worker while it answers a request,
        without the lock: an int read is whole)."""
        return self._games > 0

    def _push(self, job: Job) -> None:
        heapq.heappush(self._heap, (job.kind, job.turn, job.seq, job))
        self._ready.notify()
