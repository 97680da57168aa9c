"""The table list, pushed: the connections that asked for it, and what each was sent last.

A connection's first `list_tables` (server/lobby.py) puts it here; from then on it is pushed
the list whenever a summary changes (a table tells of every change it shows,
server/table.py `send_table`), coalesced, and never a list it already has.
"""

from __future__ import annotations

import asyncio
import time

from protocol.framing import encode

from .link import Link
from .table import Table

# The table list is pushed to a connection that asked for it at most once in this long.
PUSH_EVERY_S = 0.2


class TableList:
    """The connections that asked for the table list, and the pushes that keep them current.

    After a connection's first `list_tables` it is sent `{"type": "tables", "tables": [...]}`
    (the answer's body, without `re`) whenever the list's summaries change: coalesced, at
    most one push per `every_s` (PUSH_EVERY_S), and none to a connection whose last list encodes the
    same (a move changes no summary, so moves push nothing)."""

    __slots__ = ("tables", "last_sent", "every_s", "_pending", "_last_push")

    def __init__(self, tables: dict[int, Table]) -> None:
        self.tables = tables
        self.last_sent: dict[Link, bytes] = {}  # the list each listener has, encoded
        self._pending: asyncio.TimerHandle | None = None
        self._last_push = 0.0
        self.every_s = PUSH_EVERY_S

    def body(self) -> list[dict]:
        return [table.summary() for table in self.tables.values()]

    def answer(self, conn: Link, re: int | None) -> None:
        """The answer to `list_tables`; the connection is pushed the changes from now on."""
        tables = self.body()
        self.last_sent[conn] = encode({"type": "tables", "tables": tables})
        conn.send({"type": "tables", "re": re, "tables": tables})

    def changed(self) -> None:
        """Something a summary shows may have changed: push soon (once for a burst)."""
        if self._pending is not None or not self.last_sent:
            return
        wait = max(0.0, self._last_push + self.every_s - time.monotonic())
        self._pending = asyncio.get_running_loop().call_later(wait, self._push)

    def forget(self, conn: Link) -> None:
        self.last_sent.pop(conn, None)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _push(self) -> None:
        self._pending = None
        self._last_push = time.monotonic()
        frame = encode({"type": "tables", "tables": self.body()})
        for conn, sent in list(self.last_sent.items()):
            if conn.closed:
                del self.last_sent[conn]
            elif sent != frame:
                self.last_sent[conn] = frame
                conn.send_bytes(frame)
