"""The `records` request: a page of the records, answered off the event loop.

The handler only hands the question to the records' worker thread (server/records/) and
returns; the answer comes back through the loop (call_soon_threadsafe) and goes to the
connection that asked, if it is still open. A player is "me" by their records id, so the
player view with no `player` is the asker's own page.
"""

from __future__ import annotations

import logging

from protocol.errors import ERRORS

from .records import queries

log = logging.getLogger("kismet.host")


def on_records(host, conn, msg: dict, re) -> None:
    me = conn.player.records_id() if conn.player is not None else None
    loop = host.loop

    def answered(answer) -> None:  # on the records' thread
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(_send, conn, msg, re, me, answer)

    host.records.ask(lambda db: queries.answer(db, msg, me), answered)


def _send(conn, msg: dict, re, me: str | None, answer) -> None:
    if conn.closed:
        return
    if isinstance(answer, BaseException):
        log.warning("a records request failed: %s", answer)
        conn.send({"type": "error", "re": re, "code": "no_records", "words": ERRORS["no_records"]})
        return
    conn.send({"type": "records", "re": re, "view": msg["view"], "ruleset": msg["ruleset"],
               "page": msg["page"], "me": me, **answer})
