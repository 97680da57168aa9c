"""The owner steers the table between games: removing a member, freeing unready seats.

- `owners_table`: the table a request that only its owner may make between games (start,
  reorder) is for, or the refusal in words.

- `remove`: between games the owner may remove any other player from a seat. The removed
  player is told in words and may not sit at that table again; everyone else is told too.
- A seat still unready `host.unready_limit_s` seconds after the owner asked to start (and was
  told who they wait for) is freed, with the same words to everybody. The unready are told
  at once (a `notice`), and every member sees the moment in the table's `free_unready_at`. So a stranger who sits
  down in a free seat and never readies cannot block a rematch.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from protocol.errors import ProtocolError

from .table import PLAYING, Table

if TYPE_CHECKING:
    from .connection import Connection

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


def check_removable(host, table, by_token: str, seat_index: int) -> None:
    if table.owner != by_token:
        raise ProtocolError("not_owner", "Only the table's owner can remove a player.")
    if table.state == PLAYING or table.pending_start is not None:
        raise ProtocolError("playing", "Players can be removed only between games.")
    if not 0 <= seat_index < len(table.seats):
        raise ProtocolError("bad_message", f"There is no seat {seat_index + 1} at this table.")
    seat = table.seats[seat_index]
    if seat.token == by_token:
        raise ProtocolError("bad_message", "You cannot remove yourself: leave the table instead.")
    if seat.bot:
        raise ProtocolError("bad_message", "Bots stay for the table's life: open a new table "
                            "for fewer bots.")


def remove_seat(host, table, seat_index: int, words_for_them: str, words_for_all: str) -> None:
    """Free one seat now: its player leaves the table, told why, and may not sit here again."""
    seat = table.seats.pop(seat_index)
    host.removed_from.setdefault(table.id, set()).add(seat.token)
    member = host.players.get(seat.token)
    if member is not None and member.table is table:
        member.table = None
        if member.conn is not None:
            member.conn.error("removed", words_for_them)
            # The table is closed to them: a client clears its table on a "closed" state.
            member.conn.send({"type": "table", "table": {**table.describe(), "state": "closed"}})
    table.send_table()
    table.broadcast({"type": "notice", "code": "removed", "words": words_for_all})


def start_asked(host, table, owner_name: str) -> str:
    """The owner asked to start and someone is not ready: free their seats later if they
    stay unready, and tell them so (a notice, and the table's `free_unready_at`, which
    their screens count down). Returns the words for the owner."""
    limit = host.unready_limit_s
    timers = host.unready_timers
    if table.id not in timers:
        timers[table.id] = asyncio.get_running_loop().call_later(limit, _free_unready, host, table)
        table.free_unready_at = host.now_ms() + int(limit * 1000)
        table.send_table()
        words = f"{owner_name} wants to start: say you are ready within {limit:g} s, or lose your seat."
        for seat in table.seats:
            member = host.players.get(seat.token)
            if (not seat.ready and not seat.bot and seat.token != table.owner and member is not None
                    and member.conn is not None and member.table is table):
                member.conn.send({"type": "notice", "code": "start_asked", "words": words})
    return f"A seat still not ready {limit:g} s after the start was asked is freed."


def cancel(host, table) -> None:
    table.free_unready_at = None
    timer = host.unready_timers.pop(table.id, None)
    if timer is not None:
        timer.cancel()


def _free_unready(host, table) -> None:
    host.unready_timers.pop(table.id, None)
    table.free_unready_at = None
    if host.tables.get(table.id) is not table or table.state == PLAYING:
        return
    table.send_table()  # the countdown is over, whether or not a seat is freed now
    limit = host.unready_limit_s
    for index in reversed(range(len(table.seats))):
        seat = table.seats[index]
        if seat.ready or seat.bot or seat.token == table.owner:
            continue
        remove_seat(host, table, index,
                    f"You were not ready {limit:g} s after the owner asked to start: your seat "
                    f"at table {table.id} was freed.",
                    f"{seat.name} was not ready {limit:g} s after the start was asked: their seat is free.")
