"""The handshake: who someone is across reconnections, from hello to a dropped connection.

Owns the `Player` (token, client id, name, their connection and table) and the host's
`players` by token: `hello` checks the protocol version (and a door's pass: the connection
then counts against the player's real address), gives a new player a token or
brings a returning one back (to a reserved bot seat or a seat resumed after a restart too),
replaces an older connection of the same player, and answers `welcome`; `ping` answers the
host's time. When a connection drops, a player in a running game stays seated (marked away);
anyone else leaves their table and, with nothing to come back to, is forgotten.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from protocol import limits
from protocol.errors import ProtocolError

from . import connection, lobby
from .table import PLAYING, Table

if TYPE_CHECKING:
    from .connection import Connection


class Player:
    """Who someone is across reconnections: their token, id and name."""

    __slots__ = ("token", "client_id", "name", "conn", "table")

    def __init__(self, token: str, client_id: int, name: str):
        self.token = token
        self.client_id = client_id
        self.name = name
        self.conn: Connection | None = None
        self.table: Table | None = None


def on_hello(host, conn: Connection, msg: dict, re) -> None:
    if conn.player is not None:
        raise ProtocolError("bad_message", "You already said hello.")
    if msg["version"] != limits.PROTOCOL_VERSION:
        older = msg["version"] < limits.PROTOCOL_VERSION
        raise ProtocolError("version", f"This host speaks protocol version "
                            f"{limits.PROTOCOL_VERSION}, your client {msg['version']}. "
                            + ("Please update your client: since version 2 no client learns "
                               "a die or a card before it is shown." if older else
                               "Please use matching versions."), fatal=True)
    if msg["door"] is not None:
        door = host.door_passes.find(msg["door"])
        if door is None:
            raise ProtocolError("bad_message", "That door pass is not one this host gave.", fatal=True)
        if not connection.came_through(host, conn, door):
            connection.refuse_address(host, conn)
            return
    token = msg["token"]
    player = host.players.get(token) if token else None
    if player is None and token:
        table = table_holding(host, token)
        if table is not None:  # a reserved bot seat, or a seat from before a restart
            player = new_player(host, msg["name"], token)
            player.table = table
    if player is None:
        player = new_player(host, msg["name"])
    if player.conn is not None and player.conn is not conn:
        old = player.conn
        player.conn = None  # so its closing does not mark the seat away
        old.error("replaced")
        old.close()
    player.name = fixed_name(player) or msg["name"]
    player.conn = conn
    conn.player = player
    table = player.table
    conn.send({
        "type": "welcome", "re": re, "client_id": player.client_id, "token": player.token,
        "name": player.name, "version": limits.PROTOCOL_VERSION, "now": host.now_ms(),
        "table": table.id if table else None,
    })
    if table is not None:
        lobby.arrive(host, table, player, rejoin=True)
    elif token and token in host.set_aside:
        conn.error("no_table", host.set_aside.pop(token))


def on_ping(host, conn: Connection, msg: dict, re) -> None:
    conn.send({"type": "pong", "re": re, "now": host.now_ms()})


def table_holding(host, token: str) -> Table | None:
    for table in host.tables.values():
        if table.seat_of(token) is not None:
            return table
    return None


def fixed_name(player: Player) -> str | None:
    """A seat's name that a returning player keeps: in a running game's header, or the
    name the host gave a bot seat."""
    table = player.table
    if table is None:
        return None
    seat = table.seat_of(player.token)
    if seat is None:
        return None
    if table.state == PLAYING or table.seats[seat].bot:
        return table.seats[seat].name
    return None


def new_player(host, name: str, token: str | None = None) -> Player:
    player = Player(token or secrets.token_urlsafe(18), host._next_client, name)
    host._next_client += 1
    host.players[player.token] = player
    return player


def dropped(host, conn: Connection) -> None:
    """The player's connection ended (called once per connection, when it is over)."""
    player = conn.player
    if player is None or player.conn is not conn:
        return
    player.conn = None
    if host._stopping:
        return
    table = player.table
    seat = table.seat_of(player.token) if table is not None else None
    if table is not None and table.state == PLAYING and seat is not None:
        # Keep the player at the table: reconnecting with the token brings them back.
        if not table.running.away[seat]:
            table.stamp(-1, {"type": "away", "seat": seat})
        table.send_table()
        return
    if table is not None:
        lobby.depart(host, player)
    if table_holding(host, player.token) is None:
        # Nothing to come back to: forget the player, so connections cannot pile up.
        host.players.pop(player.token, None)
