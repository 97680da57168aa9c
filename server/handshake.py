"""The handshake: who someone is across reconnections, from hello to a dropped connection.

Makes and forgets the host's `players` (server/player.py) by token: `hello` checks the protocol version (and a door's pass: the connection
then counts against the player's real address), gives a new player a token or
brings a returning one back (to a reserved bot seat or a seat resumed after a restart too;
a connection proven as somebody here, by a door's identity or a player_key, is that
somebody: one proof, one player, one seat),
refuses a name that looks like one somebody else here holds or like a bot's, replaces an
older connection of the same player, and answers `welcome`; `ping` answers the host's time.
When a connection drops, a player in a running game stays seated (marked away); anyone else
leaves their table and, with nothing to come back to, is forgotten.
"""

from __future__ import annotations

import re as regex
import secrets
from functools import lru_cache

from kismet_tui.rules import HOST
from protocol import limits
from protocol.errors import ProtocolError
from protocol.requests import Hello, Ping
from protocol.text import name_key, shows_letter_or_digit

from . import connection, lobby, table_share
from .connection import Connection
from .jobs import Jobs
from .player import Player
from .records.proof import proof_of
from .table import PLAYING, Table


def on_hello(host: Jobs, conn: Connection, msg: Hello, re: int | None) -> None:
    if conn.player is not None:
        raise ProtocolError("bad_message", "You already said hello.")
    if msg["version"] != limits.PROTOCOL_VERSION:
        older = msg["version"] < limits.PROTOCOL_VERSION
        raise ProtocolError(
            "version",
            f"This host speaks protocol version "
            f"{limits.PROTOCOL_VERSION}, your client {msg['version']}. "
            + (
                "Please update your client: since version 3 nothing a client "
                "is shown tells a die or a card before it is thrown or dealt."
                if older
                else "Please use matching versions."
            ),
            fatal=True,
        )
    if msg["door"] is not None:
        door = host.door_passes.find(msg["door"])
        if door is None:
            raise ProtocolError(
                "bad_message", "That door pass is not one this host gave.", fatal=True
            )
        if not connection.came_through(host.gate, conn, door):
            connection.refuse_address(host.gate, conn)
            return
    # A door session's client runs as the host's user: only the door's proof counts there.
    proof = (
        proof_of(conn.door.identity, None)
        if conn.door is not None
        else proof_of(None, msg.get("player_key"))
    )
    token = msg["token"]
    player = host.players.get(token) if token else None
    same = holder_of(host, proof)
    if same is not None and same is not player:
        player = same  # one proof, one player: this connection takes theirs over, seat and all
    elif player is None and token:
        table = table_holding(host, token)
        if table is not None:  # a reserved bot seat, or a seat from before a restart
            player = new_player(host, msg["name"], token)
            # A paused game is offered in the lobby, not taken up at hello: its player chooses.
            seat = table.seat_of(token)
            if table.paused_at is None or (seat is not None and table.seats[seat].bot):
                player.table = table
    # A player whose table closed while they were away, or was set aside at a restart, comes
    # back as themselves: the same token (and client id, while the host runs), told why.
    kept = host.set_aside.get(token) if token and player is None else None
    fixed = fixed_name(player) if player is not None else None
    if fixed is None:  # a name of one's own choosing: not one somebody else holds
        refusal = name_refusal(host, msg["name"], player.token if player is not None else None)
        if refusal is not None:
            raise ProtocolError("name_taken", refusal)
    if player is None:
        player = (
            new_player(host, msg["name"])
            if kept is None
            else new_player(host, msg["name"], token, kept.client_id)
        )
    if player.conn is not None and player.conn is not conn:
        old = player.conn
        player.conn = None  # so its closing does not mark the seat away
        old.error("replaced", replaced_words(proof) if player is same else None)
        old.close()
    player.name = fixed or msg["name"]
    player.conn = conn
    if proof is not None:
        player.proof = proof
    conn.player = player
    table = player.table
    conn.send(
        {
            "type": "welcome",
            "re": re,
            "client_id": player.client_id,
            "token": player.token,
            "name": player.name,
            "version": limits.PROTOCOL_VERSION,
            "now": host.now_ms(),
            "table": table.id if table else None,
            "host_key": host.host_key(),
        }
    )
    if table is not None:
        lobby.arrive(host, table, player, rejoin=True)
    elif token and token in host.set_aside:
        conn.error("no_table", host.set_aside.pop(token).words)


def on_ping(host: Jobs, conn: Connection, msg: Ping, re: int | None) -> None:
    conn.send({"type": "pong", "re": re, "now": host.now_ms()})


def holder_of(host: Jobs, proof: str | None) -> Player | None:
    """The player here (connected, or holding a seat) whom `proof` proves, if any."""
    if proof is None:
        return None
    return next(
        (
            player
            for player in host.players.values()
            if player.proof == proof and (player.conn is not None or player.table is not None)
        ),
        None,
    )


def replaced_words(proof: str | None) -> str:
    """Words for a connection another one with the same proof took over."""
    what = "player key" if proof is not None and proof.startswith("key ") else "key or browser"
    return (
        f"You connected again from somewhere else with the same {what}: this connection "
        "gave way to the newer one (one player holds one seat)."
    )


def name_refusal(host: Jobs, name: str, token: str | None) -> str | None:
    """Why the player holding `token` (None: a newcomer) cannot go by `name`, in words, or
    None. Names that look alike (protocol.text.name_key) are one name; the bots' form
    ("Bot 2 (hard)") is kept for the bots; a name must show a letter or a digit."""
    if not shows_letter_or_digit(name):
        return "A name needs a letter or a digit that people can see: please pick another name."
    if bot_form().fullmatch(name_key(name)):
        return f"Names like {name} are kept for the host's bots: please pick another name."
    holder = name_holder(host, name, token)
    if holder is not None:
        return f"Somebody called {holder} is already at this host: please pick another name."
    return None


def name_holder(host: Jobs, name: str, token: str | None) -> str | None:
    """The name, as shown, of somebody other than `token` here who goes by a name that looks
    like `name`: connected, or holding a seat (away, or from before a restart)."""
    key = name_key(name)
    present = [
        player.name
        for player in host.players.values()
        if player.token != token and (player.conn is not None or player.table is not None)
    ]
    present += [
        seat.name for table in host.tables.values() for seat in table.seats if seat.token != token
    ]
    return next((other for other in present if name_key(other) == key), None)


@lru_cache(maxsize=1)
def bot_form() -> regex.Pattern[str]:
    """The keys of names in the form the host gives its bots (lobby.py: "Bot 1 (easy)"), and
    the runner's "Bot (easy)"; built from keys, so look-alikes ("B0t l") match too."""

    def key(text: str) -> str:
        return regex.escape(name_key(text))

    digits = "".join(sorted({key(d) for d in "0123456789"}))
    return regex.compile(f"{key('Bot')}(?: ?[{digits}]+)?(?: ?{key('(')}.*{key(')')})?")


def table_holding(host: Jobs, token: str) -> Table | None:
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


def new_player(
    host: Jobs, name: str, token: str | None = None, client_id: int | None = None
) -> Player:
    player = Player(
        token or secrets.token_urlsafe(18),
        next(host.client_ids) if client_id is None else client_id,
        name,
    )
    host.players[player.token] = player
    return player


def dropped(host: Jobs, conn: Connection) -> None:
    """The player's connection ended (called once per connection, when it is over)."""
    player = conn.player
    if player is None or player.conn is not conn:
        return
    player.conn = None
    if host.gate.stopping:
        return
    table = player.table
    seat = table.seat_of(player.token) if table is not None else None
    if table is not None and table.state == PLAYING and seat is not None:
        # Keep the player at the table: reconnecting with the token brings them back.
        if not table.running.away[seat]:
            table.stamp(HOST, {"type": "away", "seat": seat})
        table_share.look_again(host, table)
        table.send_table()
        return
    if table is not None:
        lobby.depart(host, player)
    if table_holding(host, player.token) is None:
        # Nothing to come back to: forget the player, so connections cannot pile up.
        host.players.pop(player.token, None)
