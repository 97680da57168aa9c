"""A game's start: the owner's `start`, the wait for the table's bots, a start that fails.

The owner may start when every other player's seat is ready and the seat count fits the
game. Bots are real clients that may still be connecting, and add their entropy like
everyone (a bot says ready for every game, a rematch too): the start waits for them at most BOT_SEATING_WAIT_S, then goes ahead (a game started at once
would open with every bot "away" and "back" in the log). A start the host cannot carry out
(it cannot save the game, or something fails) tells every member in words and leaves the
table in the lobby as it was.
"""

from __future__ import annotations

import asyncio
import logging

from kismet_tui.rules import game_module
from protocol.errors import ProtocolError, error_message
from protocol.requests import Start

from . import steering, table_share
from .chance import valid_entropy
from .connection import Connection
from .jobs import Jobs
from .link import Link
from .store import StoreError
from .table import CLOSED, PLAYING, Table

log = logging.getLogger("kismet.host")

# How long a start waits for the table's bots to connect before it goes ahead without them.
BOT_SEATING_WAIT_S = 5.0


def on_start(host: Jobs, conn: Connection, msg: Start, re: int | None) -> None:
    table = steering.owners_table(
        conn, "Only the table's owner can start the game.", "The game has already started."
    )
    # Bots always want another game: one not ready yet is only on its way (bots_missing
    # below waits for it), never a player to wait for.
    waiting = [s.name for s in table.seats if not s.ready and not s.bot and s.token != table.owner]
    if waiting:
        raise ProtocolError(
            "not_ready",
            f"Not everyone is ready: waiting for {', '.join(waiting)}. "
            f"{host.steering.start_asked(table, conn.known_player.name)}",
        )
    host.steering.cancel(table)
    if table.pending_start is not None:
        raise ProtocolError("playing", "The game is starting: the bots are sitting down.")
    owner_seat = table.seat_of(conn.known_player.token)
    if owner_seat is not None and msg.get("entropy") is not None:
        table.set_entropy(owner_seat, valid_entropy(msg["entropy"]))
    check_seat_count(table)
    if bots_missing(table):
        # Bots are real clients and may still be connecting: a game started now would
        # open with every bot "away" and "back" in the log. Wait for them, briefly.
        # The answer waits too: `ok` comes after the game's `table` and `game`, as always.
        table.pending_start = asyncio.get_running_loop().call_later(
            BOT_SEATING_WAIT_S, start_now, host, table
        )
        table.start_asked = (conn, re)
        return
    words = start_game(table, told=conn)
    if words is not None:
        raise ProtocolError("cannot_start", words)
    conn.ok(re)


def check_seat_count(table: Table) -> None:
    cls = game_module(table.ruleset).GAME
    if not cls.MIN_SEATS <= len(table.seats) <= cls.MAX_SEATS:
        raise ProtocolError(
            "not_ready",
            f"{table.ruleset} needs {cls.MIN_SEATS} to "
            f"{cls.MAX_SEATS} players; {len(table.seats)} sit here.",
        )


def bots_missing(table: Table) -> bool:
    """A bot is not seated yet, or has not sent its entropy for the game (bots are clients
    and add theirs like everyone; the start waits for them briefly, then goes on)."""
    return any(
        seat.bot and (not table.connected(seat.token) or seat.entropy is None)
        for seat in table.seats
    )


def start_now(host: Jobs, table: Table) -> None:
    """Start a game whose start waited for its bots (all seated, or the wait ran out), and
    answer the owner's `start` only now: `ok` after `table` and `game`, or the error."""
    if table.pending_start is not None:
        table.pending_start.cancel()
        table.pending_start = None
    asker, re = table.start_asked or (None, None)
    table.start_asked = None
    if table.state in (PLAYING, CLOSED) or host.tables.get(table.id) is not table:
        return  # (a table that closed answered its asker as it closed)
    try:
        check_seat_count(table)
    except ProtocolError as exc:
        for conn in table.connections():
            if conn is not asker:
                conn.send(exc.message())
        if asker is not None:
            asker.send(exc.message(re))
        return
    words = start_game(table, told=asker)
    if asker is None:
        return
    if words is None:
        asker.ok(re)
    else:
        asker.send(error_message("cannot_start", words, re))


def start_game(table: Table, told: Link | None = None) -> str | None:
    """Start the table's game; None, or the words every member (but `told`, who asked
    and gets them as the answer) was sent when the start failed and the table stayed
    where it was."""
    state, ready = table.state, [seat.ready for seat in table.seats]
    options = table_share.game_options(table)
    try:
        table.start_game(options)
    except StoreError as exc:
        words = (
            f"The game could not start: the host cannot save it ({exc.why}). "
            f"The table stays in the lobby."
        )
        log.error("table %s: the game could not start: %s", table.id, exc.why)
    except Exception:
        log.exception("table %s: the game could not start", table.id)
        words = "The game could not start: something went wrong on the host. The table stays in the lobby."
    else:
        capped = table_share.capped_words(table, options)
        if capped is not None:
            table.broadcast({"type": "notice", "code": "away_limit", "words": capped})
        return None
    table.abandon_start(state, ready, words, told=told)
    return words
