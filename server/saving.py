"""A table's one way to the disk: nobody sees an event before the disk has it.

Every stamped event goes through `Saving.put`: written to the game's log (to the OS, on the
event loop: a write is microseconds), then sent. The game's last event is written with its
end record and signature in one write, then flushed (fsync) on the store's sync threads, and
sent once the flush is done: the outbox (`held`) holds it meanwhile, and that table refuses
moves ("This game is over") while its other tables play on.

When the disk refuses (a write, or the end's flush) the table pauses, tells its members in
one set of words (`pause_words`), and tries again every RETRY_S seconds, always the same
way: the held event is written again (and, the end, flushed again off the loop), else a
probe of the log. A player's move that cannot be written is refused for good: the table
undoes it (nobody has seen it) and the player is told it was not played, so a client that
sends it again once play goes on moves once, never twice. A host stamp (a timeout, a seat
marked away or back) is held instead (the engine has applied it) and goes out once the disk
takes it. While paused, players' moves are refused with the same words and the host stamps
nothing (no timeouts; a player dropping or coming back is looked at again later). Once the
disk takes everything, members are told play goes on, the held event goes out, each seat is
marked away or back as its player is now, and play goes on.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from concurrent.futures import Future
from typing import Protocol

from kismet_tui.rules import HOST
from kismet_tui.rules.game_types import EndRecord, Event
from protocol.errors import ProtocolError, error_message
from protocol.framing import encode, map_entries
from protocol.host_messages import ToClient

from .link import Link
from .reaction import Notes
from .store import GameWriter, StoreError, why_of

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


class Outgoing:
    """One stamped event nobody has seen yet: with its notes, who sent it and their request's
    id, and, for the game's last, its end record (`end`); `written` once the log has it. Its
    fields are packed once (`entries`): the log's record and every frame sent are made of
    those bytes (protocol/framing.py frame_of)."""

    __slots__ = ("event", "notes", "sender", "re", "end", "written", "entries")

    def __init__(
        self,
        event: Event,
        notes: Notes,
        sender: Link | None,
        re: int | None,
        end: EndRecord | None,
    ) -> None:
        self.event = event
        self.notes = notes
        self.sender = sender
        self.re = re
        self.end = end
        self.written = False
        self.entries = map_entries(event)


class SavingTable(Protocol):
    """What a table offers its `Saving` (server/table.py's Table)."""

    @property
    def id(self) -> int: ...

    @property
    def writer(self) -> GameWriter | None: ...

    def flush_end(self, fd: int) -> Future[None]: ...

    def cancel_timer(self) -> None: ...

    def connections(self) -> list[Link]: ...

    def broadcast(self, message: ToClient) -> None: ...

    def publish(self, out: Outgoing) -> None: ...

    def play_resumed(self, held: Outgoing | None) -> None: ...


class Saving:
    """The table's outbox to the disk, and its one retry policy."""

    __slots__ = ("table", "waiting", "held", "words", "_timer")

    def __init__(self, table: SavingTable) -> None:
        self.table = table
        self.waiting = False  # play is paused: the disk refused a write or a flush
        self.held: Outgoing | None = None  # written to nobody yet: the disk has not taken it
        self.words = ""
        self._timer: asyncio.TimerHandle | None = None

    @property
    def ending(self) -> bool:
        """Whether the game's last event is held (its end on its way to the disk)."""
        return self.held is not None and self.held.end is not None

    def paused(self, seat: int) -> bool:
        """False if play is on. While paused a host stamp is skipped (True: play_resumed looks
        at deadlines and who is connected again); a player's action is refused in words."""
        if not self.waiting:
            return False
        if seat == HOST:
            return True
        raise ProtocolError("cannot_save", f"{self.words} {NOT_PLAYED}")

    def put(self, out: Outgoing) -> None:
        """Write one stamped event, then send it (the game's last once flushed, off the loop).
        StoreError for a player's move the disk did not take (nothing of it kept: the table
        undoes it, then `refuse`); a host stamp is held instead, and play pauses."""
        try:
            self._write(out)
        except StoreError as exc:
            if out.event["seat"] != HOST:
                raise
            self.held = out  # the host's own stamp goes out later
            self._pause(exc, None, f"event {out.event['seq']}")
            return
        if out.end is None:
            self.table.publish(out)
        else:
            self.held = out
            self._flush(out)

    def _write(self, out: Outgoing) -> None:
        writer = self.table.writer
        if writer is not None:
            writer.append(out.event, out.end, out.entries)
        out.written = True

    def _flush(self, out: Outgoing) -> None:
        """The end record to the disk on a sync thread; the last event goes out after."""
        writer = self.table.writer
        if writer is None:  # (no log: nothing to wait for)
            self._taken()
            return
        flushed = asyncio.wrap_future(self.table.flush_end(writer.fd))
        flushed.add_done_callback(lambda done: self._flushed(out, done))

    def _flushed(self, out: Outgoing, done: asyncio.Future[None]) -> None:
        if self.held is not out:  # the table closed (or gave up the game) meanwhile
            return
        failed = done.exception() if not done.cancelled() else OSError("cancelled")
        if failed is None:
            self._taken()
            return
        # The end is written but not on the disk: nobody is shown it yet; try again.
        why = why_of(failed) if isinstance(failed, OSError) else str(failed)
        if self.waiting:  # (a retry's flush: the members were told already)
            self.words = pause_words(StoreError(why))
            self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._retry)
        else:
            self._pause(StoreError(why), None, "the game's end")

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
        """The one retry: the held event written again (and, the end, flushed off the loop),
        else a probe of the log."""
        self._timer = None
        held = self.held
        try:
            if held is None:
                writer = self.table.writer
                if writer is not None:
                    writer.probe(PROBE_BYTES)
            elif not held.written:
                self._write(held)
        except StoreError as exc:
            self.words = pause_words(exc)
            self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._retry)
            return
        if held is not None and held.end is not None:
            self._flush(held)  # play goes on once the flush is done
        else:
            self._taken()

    def _taken(self) -> None:
        """The disk has everything: the held event goes out, and play goes on if it paused."""
        held, self.held = self.held, None
        if not self.waiting:
            if held is not None:
                self.table.publish(held)
            return
        self.waiting = False
        log.info("table %s: saving again; play goes on", self.table.id)
        self.table.broadcast({"type": "notice", "code": "saving", "words": RESUMED_WORDS})
        self.table.play_resumed(held)

    def cancel(self) -> None:
        """The table closes or gives up its game: nothing held goes out, no retry runs."""
        self.waiting, self.held = False, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
