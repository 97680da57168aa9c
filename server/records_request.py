"""The `records` request: a page of the records, answered off the event loop.

The handler only hands the question to the records' worker thread (server/records/) and
returns; the answer comes back through the loop (call_soon_threadsafe) and goes to the
connection that asked, if it is still open. A player is "me" by their records id, so the
player view with no `player` is the asker's own page. `RecordsAsked` holds what it needs:
the records, and how many requests of each connection are still waiting.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from protocol.errors import ERRORS, ProtocolError

from .connection import Connection
from .records import RecordIndex, queries

log = logging.getLogger("kismet.host")

# Requests of one connection waiting for the records' thread at once: a flood of deep pages
# waits at the door, not in the thread's queue (where every other player's games wait too).
MAX_WAITING = 4


class RecordsAsked:
    """The records, and the requests of each connection not answered yet."""

    __slots__ = ("records", "waiting")

    def __init__(self, records: RecordIndex) -> None:
        self.records = records
        self.waiting: dict[Connection, int] = {}


class RecordsHost(Protocol):
    """What the `records` request needs of the host."""

    @property
    def records_asked(self) -> RecordsAsked: ...


def on_records(host: RecordsHost, conn: Connection, msg: dict, re: int | None) -> None:
    asked = host.records_asked
    waiting = asked.waiting
    if waiting.get(conn, 0) >= MAX_WAITING:
        raise ProtocolError("slow_down", "The records are still looking up what you asked: "
                                         "one moment, then ask again.")
    me = conn.player.records_id() if conn.player is not None else None
    loop = asyncio.get_running_loop()  # (handlers run on the host's loop)
    waiting[conn] = waiting.get(conn, 0) + 1

    def answered(answer: dict | BaseException) -> None:  # on the records' thread
        if not loop.is_closed():
            loop.call_soon_threadsafe(_send, waiting, conn, msg, re, me, answer)

    asked.records.ask(lambda db: queries.answer(db, msg, me), answered)


def _send(waiting: dict[Connection, int], conn: Connection, msg: dict, re: int | None,
          me: str | None, answer: dict | BaseException) -> None:
    left = waiting.pop(conn, 1) - 1
    if left > 0:
        waiting[conn] = left
    if conn.closed:
        return
    if isinstance(answer, BaseException):
        log.warning("a records request failed: %s", answer)
        conn.send({"type": "error", "re": re, "code": "no_records", "words": ERRORS["no_records"]})
        return
    conn.send({"type": "records", "re": re, "view": msg["view"], "ruleset": msg["ruleset"],
               "page": msg["page"], "me": me, **answer})
