"""The owner steers the table between games: removing a member, freeing unready seats.

- `owners_table`: the table a request that only its owner may make between games (start,
  reorder) is for, or the refusal in words.

- `remove`: between games the owner may remove any other player from a seat. The removed
  player is told in words and may not sit at that table again; everyone else is told too.
- A seat still unready `Steering.unready_limit_s` seconds after the owner asked to start (and was
  told who they wait for) is freed, with the same words to everybody. The unready are told
  at once (a `notice`), and every member sees the moment in the table's `free_unready_at`. So a stranger who sits
  down in a free seat and never readies cannot block a rematch.

`Steering` holds both: who each table's owner removed, and the unready-seat timers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from protocol.errors import ProtocolError

from .connection import Connection
from .player import Player
from .table import CLOSED, PLAYING, Table

UNREADY_LIMIT_S = 60.0


def owners_table(conn: Connection, only_owner: str, not_now: str) -> Table:
    """The requester's table, if they own it and no game runs there; else refused with
    `only_owner` ("Only the table's owner can ...") or `not_now` (a game is running)."""
    player = conn.known_player
    table = player.table
    if table is None:
        raise ProtocolError("not_at_table")
    if table.owner != player.token:
        raise ProtocolError("not_owner", only_owner)
    if table.state == PLAYING:
        raise ProtocolError("playing", not_now)
    return table


class Steering:
    """Who each table's owner removed (they may not sit there again), and the timers that
    free unready seats; given the host's players, tables and clock."""

    __slots__ = ("players", "tables", "now_ms", "removed_from", "unready_timers", "unready_limit_s")

    def __init__(
        self, players: Mapping[str, Player], tables: Mapping[int, Table], now_ms: Callable[[], int]
    ) -> None:
        self.players = players
        self.tables = tables
        self.now_ms = now_ms
        self.removed_from: dict[int, set[str]] = {}
        self.unready_timers: dict[int, asyncio.TimerHandle] = {}
        self.unready_limit_s = UNREADY_LIMIT_S

    def was_removed(self, table: Table, token: str) -> bool:
        return token in self.removed_from.get(table.id, ())

    def check_removable(self, table: Table, by_token: str, seat_index: int) -> None:
        if table.owner != by_token:
            raise ProtocolError("not_owner", "Only the table's owner can remove a player.")
        if table.state == PLAYING or table.pending_start is not None:
            raise ProtocolError("playing", "Players can be removed only between games.")
        if not 0 <= seat_index < len(table.seats):
            raise ProtocolError("bad_message", f"There is no seat {seat_index + 1} at this table.")
        seat = table.seats[seat_index]
        if seat.token == by_token:
            raise ProtocolError(
                "bad_message", "You cannot remove yourself: leave the table instead."
            )
        if seat.bot:
            raise ProtocolError(
                "bad_message", "Bots stay for the table's life: open a new table for fewer bots."
            )

    def remove_seat(
        self, table: Table, seat_index: int, words_for_them: str, words_for_all: str
    ) -> None:
        """Free one seat now: its player leaves the table, told why, and may not sit here again."""
        seat = table.unseat(seat_index)
        self.removed_from.setdefault(table.id, set()).add(seat.token)
        member = self.players.get(seat.token)
        if member is not None and member.table is table:
            member.table = None
            if member.conn is not None:
                member.conn.error("removed", words_for_them)
                # The table is closed to them: a client clears its table on a "closed" state.
                member.conn.send({"type": "table", "table": {**table.describe(), "state": CLOSED}})
        table.send_table()
        table.broadcast({"type": "notice", "code": "removed", "words": words_for_all})

    def start_asked(self, table: Table, owner_name: str) -> str:
        """The owner asked to start and someone is not ready: free their seats later if they
        stay unready, and tell them so (a notice, and the table's `free_unready_at`, which
        their screens count down). Returns the words for the owner."""
        limit = self.unready_limit_s
        timers = self.unready_timers
        if table.id not in timers:
            timers[table.id] = asyncio.get_running_loop().call_later(
                limit, self._free_unready, table
            )
            table.free_unready_at = self.now_ms() + int(limit * 1000)
            table.send_table()
            words = f"{owner_name} wants to start: say you are ready within {limit:g} s, or lose your seat."
            for seat in table.seats:
                member = self.players.get(seat.token)
                if (
                    not seat.ready
                    and not seat.bot
                    and seat.token != table.owner
                    and member is not None
                    and member.conn is not None
                    and member.table is table
                ):
                    member.conn.send({"type": "notice", "code": "start_asked", "words": words})
        return f"A seat still not ready {limit:g} s after the start was asked is freed."

    def cancel(self, table: Table) -> None:
        table.free_unready_at = None
        timer = self.unready_timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()

    def forget(self, table: Table) -> None:
        """The table closed: its timer stops, and whom it removed no longer matters."""
        self.cancel(table)
        self.removed_from.pop(table.id, None)

    def _free_unready(self, table: Table) -> None:
        self.unready_timers.pop(table.id, None)
        table.free_unready_at = None
        if self.tables.get(table.id) is not table or table.state == PLAYING:
            return
        table.send_table()  # the countdown is over, whether or not a seat is freed now
        limit = self.unready_limit_s
        for index in reversed(range(len(table.seats))):
            seat = table.seats[index]
            if seat.ready or seat.bot or seat.token == table.owner:
                continue
            self.remove_seat(
                table,
                index,
                f"You were not ready {limit:g} s after the owner asked to start: your seat "
                f"at table {table.id} was freed.",
                f"{seat.name} was not ready {limit:g} s after the start was asked: their seat is free.",
            )
