"""The `records` request: a page of the records, answered off the event loop.

The handler only hands the question to the records' worker thread (server/records/) and
returns; the answer comes back through the loop (call_soon_threadsafe) and goes to the
connection that asked, if it is still open. A player is "me" by their records id, so the
player view with no `player` is the asker's own page.
"""

from __future__ import annotations

import logging

from protocol.errors import ERRORS, ProtocolError

from .connection import Connection
from .jobs import Jobs
from .records import queries

log = logging.getLogger("kismet.host")

# Requests of one connection waiting for the records' thread at once: a flood of deep pages
# waits at the door, not in the thread's queue (where every other player's games wait too).
MAX_WAITING = 4


def on_records(host: Jobs, conn: Connection, msg: dict, re: int | None) -> None:
    waiting = host.records_waiting
    if waiting.get(conn, 0) >= MAX_WAITING:
        raise ProtocolError("slow_down", "The records are still looking up what you asked: "
                                         "one moment, then ask again.")
    me = conn.player.records_id() if conn.player is not None else None
    loop = host.loop
    waiting[conn] = waiting.get(conn, 0) + 1

    def answered(answer: dict | BaseException) -> None:  # on the records' thread
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(_send, waiting, conn, msg, re, me, answer)

    host.records.ask(lambda db: queries.answer(db, msg, me), answered)


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
