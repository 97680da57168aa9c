"""The table list, pushed: the connections that asked for it, and what each has.

A connection's first `list_tables` (server/lobby.py) puts it here; from then on it is pushed
what changed whenever a summary changes (a table tells of every change it shows,
server/table.py `send_table`): at most once per window for everyone together, so a burst of
changes is one push, and nothing a listener has already. A listener that asked with
`changes` is pushed `tables_changed` (only the tables added or changed, and the ids of those
gone); one that asked the old way is pushed the whole list (`tables`) instead, as rarely.
"""

from __future__ import annotations

import asyncio
import time

from protocol.framing import encode
from protocol.host_messages import Tables, TablesChanged, TableSummary

from .link import Link
from .table import Table

# The table list is pushed to a connection that asked for it at most once in this long: one
# connection churning at a table costs each lobby at most two small pushes a second.
PUSH_EVERY_S = 0.5

Summaries = dict[int, TableSummary]  # table id -> its summary, in the host's order


class Listener:
    """One connection that asked for the list: how it wants pushes, and the summaries it has
    (the very objects, so that a summary kept from one push to the next is an identity test)."""

    __slots__ = ("changes", "has")

    def __init__(self, changes: bool, has: Summaries) -> None:
        self.changes = changes
        self.has = has


class TableListFeed:
    """The connections that asked for the table list, and the pushes that keep them current.

    `shown` is the list as the last push round saw it; each summary that did not change since
    is the same object, so a round's changes are found once, encoded once, and sent as the
    same bytes to every listener that had the round before (a listener that asked since is
    compared on its own)."""

    __slots__ = ("tables", "listeners", "shown", "every_s", "_pending", "_last_push")

    def __init__(self, tables: dict[int, Table]) -> None:
        self.tables = tables
        self.listeners: dict[Link, Listener] = {}
        self.shown: Summaries = {}
        self._pending: asyncio.TimerHandle | None = None
        self._last_push = 0.0
        self.every_s = PUSH_EVERY_S

    def summaries(self) -> Summaries:
        """Every table's summary now; one equal to the last round's is that same object."""
        now: Summaries = {}
        for table_id, table in self.tables.items():
            summary = table.summary()
            before = self.shown.get(table_id)
            now[table_id] = before if before == summary else summary
        return now

    def answer(self, conn: Link, re: int | None, changes: bool) -> None:
        """The answer to `list_tables`: the whole list. The connection is pushed the changes
        from now on, as `tables_changed` if it asked with `changes`, else as whole lists."""
        has = self.summaries()
        self.listeners[conn] = Listener(changes, has)
        conn.send({"type": "tables", "re": re, "tables": list(has.values())})

    def changed(self) -> None:
        """Something a summary shows may have changed: push soon (once for a burst)."""
        if self._pending is not None or not self.listeners:
            return
        wait = max(0.0, self._last_push + self.every_s - time.monotonic())
        self._pending = asyncio.get_running_loop().call_later(wait, self._push)

    def forget(self, conn: Link) -> None:
        self.listeners.pop(conn, None)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _push(self) -> None:
        self._pending = None
        self._last_push = time.monotonic()
        before, now = self.shown, self.summaries()
        self.shown = now
        this_round = difference(before, now)
        whole: bytes | None = None  # each encoded once a round, and only if a listener needs it
        round_frame: bytes | None = None
        for conn, listener in list(self.listeners.items()):
            if conn.closed:
                del self.listeners[conn]
                continue
            in_step = listener.has is before  # it got the last round (not a newer answer)
            changes = this_round if in_step else difference(listener.has, now)
            listener.has = now
            if not changes[0] and not changes[1]:
                continue  # nothing it has not got already
            if not listener.changes:
                if whole is None:
                    listed: Tables = {"type": "tables", "tables": list(now.values())}
                    whole = encode(listed)
                conn.send_bytes(whole)
            elif in_step:
                round_frame = round_frame or encode(changed_message(this_round))
                conn.send_bytes(round_frame)
            else:
                conn.send(changed_message(changes))


def difference(has: Summaries, now: Summaries) -> tuple[list[TableSummary], list[int]]:
    """The summaries in `now` that `has` lacks or holds otherwise (in the host's order), and
    the ids `has` holds that are gone. (A summary kept from the last round is the same
    object: no comparison of its fields.)"""
    changed = [
        summary
        for table_id, summary in now.items()
        if has.get(table_id) is not summary and has.get(table_id) != summary
    ]
    removed = [table_id for table_id in has if table_id not in now]
    return changed, removed


def changed_message(changes: tuple[list[TableSummary], list[int]]) -> TablesChanged:
    return {"type": "tables_changed", "changed": changes[0], "removed": changes[1]}
