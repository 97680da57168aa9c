"""Idle seats (docs/rules.md [D31]): nobody waits on a dawdler.

The host counts, per seat, the turns it played for a player who is here (a turn limit
passed, or a knock pre-lay ran out): two running, with no move of theirs in between, and the
seat is marked idle (`away` stamped with `idle: true`), so the engine has the host play its
turns as soon as they come. The table's owner may hand another player's seat to the host the
same way (`hand_to_bot`). Any action of the seat's player (`act`, or `here`, which their
program sends at any key) has the host stamp them `back` first.

The count is server/misses.py's, kept by each table (server/table.py, which marks a seat
idle); here are the two requests, `here` and `hand_to_bot`, and the way back.
"""

from __future__ import annotations

from kismet_tui.rules import HOST
from protocol.errors import ProtocolError
from protocol.requests import HandToBot, Here

from .connection import Connection
from .jobs import Jobs
from .lobby import seated
from .table import PLAYING, Table


def bring_back(table: Table, seat: int) -> None:
    """The seat's player acted: if their seat was away, they are back before their move."""
    if table.state == PLAYING and table.running.away[seat]:
        table.stamp(HOST, {"type": "back", "seat": seat})
        table.send_table()


def on_here(host: Jobs, conn: Connection, msg: Here, re: int | None) -> None:
    """The player pressed a key: back at their seat, if the host was playing it."""
    table, seat = seated(conn)
    bring_back(table, seat)
    conn.ok(re)


def on_hand_to_bot(host: Jobs, conn: Connection, msg: HandToBot, re: int | None) -> None:
    """The owner hands another player's seat to the host for now, with words to all."""
    player = conn.known_player
    table = player.table
    if table is None:
        raise ProtocolError("not_at_table")
    if table.owner != player.token:
        raise ProtocolError("not_owner", "Only the table's owner can hand a seat to a bot.")
    if table.state != PLAYING:
        raise ProtocolError("no_game", "A seat can be handed to a bot only while a game runs.")
    index = msg["seat"]
    if not 0 <= index < len(table.seats):
        raise ProtocolError("bad_message", f"There is no seat {index + 1} at this table.")
    seat = table.seats[index]
    if seat.token == player.token:
        raise ProtocolError("bad_message", "That is your own seat: play on, or leave the game.")
    if seat.bot:
        raise ProtocolError("bad_message", f"{seat.name} is a bot already.")
    if table.running.away[index]:
        raise ProtocolError("bad_message", f"{seat.name} is away already: the host plays for them.")
    table.mark_idle(index, f"{player.name} handed {seat.name}'s seat to a bot.")
    conn.ok(re)
