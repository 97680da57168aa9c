"""A table's play while its disk refuses writes: paused, told, and resumed by itself.

An event that cannot be written is not sent to anyone. A player's move is refused for good:
the table undoes it (nobody has seen it) and the player is told in words that it was not
played, so a client that sends it again once play goes on moves once, never twice. A host
stamp (a timeout, a seat marked away or back) is held instead (the engine has applied it)
and goes out once the disk takes it. Either way the table tells its members in plain words
and tries the disk again every RETRY_S seconds (the held event, else a probe of the log). While
it waits, players' moves are refused with the same words and the host stamps nothing (no
timeouts; a player dropping or coming back is looked at again later). Once a write succeeds
any held event goes out, each seat is marked away or back as its player is now, members are
told play goes on, and it does.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Iterator
from typing import Protocol

from kismet_tui.rules import HOST
from kismet_tui.rules.game_types import Event
from protocol.errors import ProtocolError, error_message
from protocol.framing import encode
from protocol.host_messages import ToClient

from .link import Link
from .reaction import Notes
from .store import StoreError

log = logging.getLogger("kismet.host")

RETRY_S = 1.0


def pause_words(exc: StoreError) -> str:
    until = "there is room" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "it can write again"
    return f"The host cannot save this game right now: {exc.why}. Play goes on when {until}."


RESUMED_WORDS = "The host can save this game again: play goes on."
NOT_PLAYED = "Your move was not played: make it again then."
# What the disk must take, after the log's records, before play goes on with no event held:
# a page, more than any one event (the game's last, with its end record and signature, too).
PROBE_BYTES = 4096


class PausedTable(Protocol):
    """What a table whose play is paused offers its `Saving` (server/table.py's Table)."""

    @property
    def id(self) -> int: ...

    def cancel_timer(self) -> None: ...

    def connections(self) -> Iterator[Link]: ...

    def broadcast(self, message: ToClient) -> None: ...

    def save_event(self, event: Event, sync: bool = True) -> bool: ...

    def probe_disk(self, size: int) -> None: ...

    def play_resumed(self, held: tuple[Event, Notes] | None) -> None: ...


class Saving:
    __slots__ = ("table", "waiting", "held", "words", "_timer")

    def __init__(self, table: PausedTable) -> None:
        self.table = table
        self.waiting = False  # play is paused: the disk refused a write
        self.held: tuple[Event, Notes] | None = None  # (a host stamp, notes) written to nobody yet
        self.words = ""
        self._timer: asyncio.TimerHandle | None = None

    def paused(self, seat: int, action: dict) -> bool:
        """False if play is on. While paused a host stamp is skipped (True: resume() looks at
        deadlines and who is connected again); a player's action is refused in words."""
        if not self.waiting:
            return False
        if seat == HOST:
            return True
        raise ProtocolError("cannot_save", f"{self.words} {NOT_PLAYED}")

    def hold(self, event: Event, notes: Notes, exc: StoreError) -> None:
        """A host stamp the disk did not take: held (applied, shown to nobody) until it does."""
        self.held = (event, notes)
        self._pause(exc, None, f"event {event['seq']}")

    def refuse(self, exc: StoreError, sender: Link | None) -> ProtocolError:
        """A player's move the disk did not take (the table has undone it): play pauses, and
        the refusal for its sender, for good (they may send it again once play goes on)."""
        self._pause(exc, sender, "a move")
        return ProtocolError("cannot_save", f"{self.words} {NOT_PLAYED}")

    def _pause(self, exc: StoreError, sender: Link | None, what: str) -> None:
        table = self.table
        self.waiting = True
        self.words = pause_words(exc)
        table.cancel_timer()
        log.error("table %s: cannot save %s (%s); play paused", table.id, what, exc.why)
        frame = encode(error_message("cannot_save", self.words))
        for conn in table.connections():
            if conn is not sender:
                conn.send_bytes(frame)
        self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._retry)

    def _retry(self) -> None:
        self._timer = None
        table = self.table
        try:
            if self.held is not None:
                table.save_event(self.held[0])
            else:
                table.probe_disk(PROBE_BYTES)
        except StoreError as exc:
            self.words = pause_words(exc)
            self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._retry)
            return
        log.info("table %s: saving again; play goes on", table.id)
        held, self.held, self.waiting = self.held, None, False
        table.broadcast({"type": "notice", "code": "saving", "words": RESUMED_WORDS})
        table.play_resumed(held)

    def cancel(self) -> None:
        self.waiting, self.held = False, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
