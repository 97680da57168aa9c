"""A table's play while its disk refuses writes: paused, told, and resumed by itself.

An event that cannot be written is not sent to anyone. The table holds it (the engine has
applied it; nobody has seen it), tells its members in plain words, and tries the write again
every RETRY_S seconds. While it waits, players' actions are refused with the same words and
the host stamps nothing (no timeouts; a player dropping or coming back is looked at again
later). Once the write succeeds the held event goes out, each seat is marked away or back as
its player is now, and play goes on.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Iterator
from typing import Protocol

from kismet_tui.rules import HOST
from protocol.errors import ProtocolError, error_message
from protocol.framing import encode

from .link import Link
from .reaction import Notes
from .store import StoreError

log = logging.getLogger("kismet.host")

RETRY_S = 1.0


def pause_words(exc: StoreError) -> str:
    until = "there is room" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "it can write again"
    return f"The host cannot save this game right now: {exc.why}. Play goes on when {until}."


RESUMED_WORDS = "The host can save this game again: play goes on."


class PausedTable(Protocol):
    """What a table whose play is paused offers its `Saving` (server/table.py's Table)."""

    @property
    def id(self) -> int: ...

    def cancel_timer(self) -> None: ...

    def connections(self) -> Iterator[Link]: ...

    def broadcast(self, message: dict) -> None: ...

    def save_event(self, event: dict, sync: bool = True) -> bool: ...

    def play_resumed(self, event: dict, notes: Notes) -> None: ...


class Saving:
    __slots__ = ("table", "held", "words", "_timer")

    def __init__(self, table: PausedTable) -> None:
        self.table = table
        self.held: tuple[dict, Notes] | None = None  # (event, notes) written to nobody yet
        self.words = ""
        self._timer: asyncio.TimerHandle | None = None

    def paused(self, seat: int, action: dict) -> bool:
        """False if play is on. While paused a host stamp is skipped (True: resume() looks at
        deadlines and who is connected again); a player's action is refused in words."""
        if self.held is None:
            return False
        if seat == HOST:
            return True
        raise ProtocolError("cannot_save", self.words)

    def hold(self, event: dict, notes: Notes, sender: Link | None, re: int | None,
             exc: StoreError) -> None:
        table = self.table
        self.held = (event, notes)
        self.words = pause_words(exc)
        table.cancel_timer()
        log.error("table %s: cannot save event %s (%s); play paused", table.id, event["seq"], exc.why)
        frame = encode(error_message("cannot_save", self.words))
        for conn in table.connections():
            if conn is not sender:
                conn.send_bytes(frame)
        self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._retry)
        if sender is not None:
            raise ProtocolError("cannot_save", self.words)

    def _retry(self) -> None:
        self._timer = None
        table = self.table
        # The retry timer runs only while an event is held: hold() sets both, cancel() stops it.
        assert self.held is not None
        event, notes = self.held
        try:
            table.save_event(event)
        except StoreError as exc:
            self.words = pause_words(exc)
            self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._retry)
            return
        log.info("table %s: saving again; play goes on at event %s", table.id, event["seq"])
        self.held = None
        table.broadcast({"type": "notice", "code": "saving", "words": RESUMED_WORDS})
        table.play_resumed(event, notes)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
