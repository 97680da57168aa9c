"""A fair share of tables: no one player fills the host with tables nobody plays at.

Three rules, each in plain words to the player it stops ([D23] in docs/rules.md):
- A player owns at most `host.tables_per_player` open tables (the ones they opened, until
  each closes). A player is known by what proves them (their door's identity: an ssh key, a
  browser's secret) or else their rejoin token, and by their address too where the host
  caps addresses (not loopback, unless --cap-loopback): a fresh token from the same
  address is the same player.
- A running game whose last human has left (or was resumed after a restart and nobody came
  back) closes when its away limit passes; a human who comes back in time stops the clock.
- A game with no other human at the table (alone, or with bots only) plays with an away
  limit of at most an hour, whatever the table asked for.
- On `kismet`'s own host (`host.pause_alone`), a running game whose one human seat is away
  pauses instead (server/table.py `pause`: no move, no timeout) until its player sits
  down again; it never closes by itself, and stays on disk when the app ends, to be offered
  at the next start. Opening another table leaves it for good (server/lobby.py).
- Bots are shared the same way: the bots at the open tables a player opened count against
  their share (`host.bots_per_player`), and a running game with bots and no human connected
  closes after BOTS_ALONE_CLOSE_MS (or its away limit, if shorter), freeing its bots for
  whoever asks next.
"""

from __future__ import annotations

import asyncio

from protocol.errors import ProtocolError
from protocol.leavers import ALONE_AWAY_LIMIT_MS, BOTS_ALONE_CLOSE_MS, closes_after_ms

from .connection import Connection
from .jobs import Jobs
from .peer_cap import address_of
from .player import ToldLater
from .table import PLAYING, Table

DEFAULT_TABLES_PER_PLAYER = 3
DEFAULT_BOTS_PER_PLAYER = 7  # one table's worth: a player sits at one table at a time
# (BOTS_ALONE_CLOSE_MS, a minute, and ALONE_AWAY_LIMIT_MS, an hour: protocol/leavers.py,
# where the lobby reads them too.)
TOLD_LATER_MOST = 1000  # players of closed tables still to be told at hello


def keys_of(host: Jobs, conn: Connection) -> tuple[str, ...]:
    """What a table opened on this connection counts against."""
    player = conn.known_player
    door = conn.door
    keys = [
        f"id {door.identity}" if door is not None and door.identity else f"token {player.token}"
    ]
    address = door.address if door is not None else address_of(conn.peer)
    if not host.gate.per_address.exempts(address):
        keys.append(f"address {address}")
    return tuple(keys)


def check_share(host: Jobs, keys: tuple[str, ...]) -> None:
    """Refuse, in words saying what to do, a player who owns their share of open tables."""
    cap = host.tables_per_player
    if cap is None:
        return
    owned = sum(1 for table in host.tables.values() if set(table.opened_by) & set(keys))
    if owned >= cap:
        raise ProtocolError(
            "full",
            f"You have {owned} open tables on this host, the most one player may have. "
            f"Sit at one of them or at another player's table; a table closes when its "
            f"players have left it (a running game once its away limit has passed).",
        )


def check_bot_share(host: Jobs, keys: tuple[str, ...], wanted: int) -> None:
    """Refuse, in words, a player whose tables would hold more than their share of bots."""
    cap = host.bots_per_player
    if cap is None or not wanted:
        return
    held = sum(
        1
        for table in host.tables.values()
        if set(table.opened_by) & set(keys)
        for seat in table.seats
        if seat.bot
    )
    if held + wanted > cap:
        words = f"A player may have {cap} bots at once on this host"
        if held:
            words += f", and your tables have {held} playing already"
        words += f": ask for {cap - held} or fewer." if held < cap else "."
        raise ProtocolError(
            "full",
            f"{words} The bots of a game you left go home "
            f"{BOTS_ALONE_CLOSE_MS / 1000:g} s after the last player did.",
        )


def humans_seated(table: Table) -> int:
    return sum(1 for seat in table.seats if not seat.bot)


def game_options(table: Table) -> dict:
    """The options the next game plays with: the table's, the away limit at most an hour
    when no other human sits at the table."""
    limit = table.options.get("away_limit_ms")
    if humans_seated(table) < 2 and isinstance(limit, int) and limit > ALONE_AWAY_LIMIT_MS:
        return {**table.options, "away_limit_ms": ALONE_AWAY_LIMIT_MS}
    return table.options


def capped_words(table: Table, options: dict) -> str | None:
    """Words telling the table its game's away limit was shortened, or None."""
    if options is table.options:
        return None
    return (
        "With no other player at the table, this game's away limit is an hour, not "
        f"{table.options['away_limit_ms'] / 3_600_000:g} h: the host keeps no table for longer "
        "when nobody might come back to it."
    )


def close_after_ms(table: Table) -> int:
    """How long a running game whose humans have all left stays open: its away limit (an
    hour at most with no other human, also for a game resumed from before this rule; a
    minute at most with bots at it, whose seats nobody else may have meanwhile)."""
    return closes_after_ms(
        table.running_header, humans_seated(table), any(seat.bot for seat in table.seats)
    )


def any_player_here(table: Table) -> bool:
    """Whether a human who holds a seat is connected. The players keep a table open; a
    watcher holds no seat, so keeps none open (no owner would be left to start a game)."""
    return any(seat.bot is None and table.connected(seat.token) for seat in table.seats)


def is_bot(table: Table, token: str) -> bool:
    seat = table.seat_of(token)
    return seat is not None and table.seats[seat].bot is not None


def pauses_alone(host: Jobs, table: Table) -> bool:
    """Whether this host pauses `table`'s game while its player is away: `kismet`'s own
    host does, for a game with one human seat (the others bots)."""
    return host.pause_alone and humans_seated(table) == 1


def look_again(host: Jobs, table: Table) -> None:
    """A human left a running game, or it was resumed: with nobody human left at the table,
    its closing clock starts (once); with somebody back, it stops."""
    if table.state != PLAYING or any_player_here(table):
        if table.abandoned is not None:
            table.abandoned.cancel()
            table.abandoned = None
        return
    if pauses_alone(host, table):
        table.pause()
        return
    if table.abandoned is None:
        table.abandoned = asyncio.get_running_loop().call_later(
            close_after_ms(table) / 1000, _close_abandoned, host, table
        )


def _close_abandoned(host: Jobs, table: Table) -> None:
    table.abandoned = None
    if host.tables.get(table.id) is not table or any_player_here(table):
        return
    humans = [token for token in table.member_tokens() if not is_bot(table, token)]
    limit_s = close_after_ms(table) / 1000
    host.close_table(
        table, f"Table {table.id} closed: its players left and none came back within {limit_s:g} s."
    )
    words = (
        f"Your table {table.id} closed while everyone was away from it: nobody came back "
        f"within its away limit ({limit_s:g} s). Please join or open another."
    )
    for token in humans:
        player = host.players.get(token)
        if player is not None and (player.conn is not None or player.table is not None):
            continue  # connected, or at another table: they left this one themselves
        # Their seat is gone: nothing to come back to but these words, said at their next
        # hello (server/handshake.py).
        gone = host.players.pop(token, None)
        host.set_aside[token] = ToldLater(words, gone.client_id if gone is not None else None)
    while len(host.set_aside) > TOLD_LATER_MOST:  # the oldest untold go first
        del host.set_aside[next(iter(host.set_aside))]
