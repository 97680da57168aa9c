"""The relay of moves: a seated player's action stamped for the table, and the checks that
keep every client's copy of the game the host's.

`act` is re-encoded from its validated fields and handed to the table, which stamps it (the
engine first, then the log, then every member; server/table.py, which also runs the game's
timers), unless it answers a throw sooner than a person could (server/reaction.py, [D20]).
`digest` compares a client's digest at an event with the host's, answers a
mismatch with `desync` and the whole game; digests off the checkpoints cost the host a
replay, so at most one a second per connection is checked. `resync` sends the whole game.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

from protocol.actions import build_action
from protocol.errors import ProtocolError
from protocol.framing import encode
from protocol.host_messages import Desync
from protocol.requests import Act, Digest, Resync

from .connection import Connection
from .idle import bring_back
from .lobby import seated
from .table import PLAYING, Table

log = logging.getLogger("kismet.host")


class RelayHost(Protocol):
    """What the relay needs of the host: only where it counts the digests that did not match."""

    desyncs: int


def on_act(host: RelayHost, conn: Connection, msg: Act, re: int | None) -> None:
    table, seat = seated(conn)
    if table.state != PLAYING:
        raise ProtocolError("no_game")
    # Re-encoded from the validated fields only: nothing else the client sent is kept.
    action = build_action(table.ruleset, msg["action"])
    # [D20] A grab or knock before the dice could be seen is refused here, by the host's
    # clock, before the engine: it is never stamped, so it costs nothing and no log has it.
    table.throw_shown.check(table.ruleset, action, conn)
    bring_back(table, seat)  # a player the host was playing for is back by acting [D31]
    table.stamp(seat, action, sender=conn, re=re)


def game_table(conn: Connection) -> Table:
    """The table of the connection's player, if it has a game (running or just finished)."""
    table = conn.known_player.table
    if table is None:
        raise ProtocolError("not_at_table")
    if table.header is None:
        raise ProtocolError("no_game")
    return table


def on_digest(host: RelayHost, conn: Connection, msg: Digest, re: int | None) -> None:
    table = game_table(conn)
    seq = msg["seq"]
    if seq > len(table.events):
        raise ProtocolError("bad_message", f"Event {seq} has not happened yet.")
    # A digest off the checkpoints costs the host a replay: one per second per connection.
    if not table.digest_ready(seq):
        now = time.monotonic()
        if now - conn.last_replay < 1.0:
            conn.ok(re)  # not checked: too soon after the last replay
            return
        conn.last_replay = now
    mine = table.digest_at(seq)
    if mine != msg["digest"]:
        host.desyncs += 1
        now = time.monotonic()
        if now - conn.last_desync_log >= 1.0:  # a client sending wrong digests on purpose
            conn.last_desync_log = now  # must not fill the host's log
            log.warning(
                "desync at table %s seq %s for client %s",
                table.id,
                seq,
                conn.known_player.client_id,
            )
        # The answer and the whole game in one write (one system call, not two).
        desync: Desync = {"type": "desync", "re": re, "seq": seq, "digest": mine}
        conn.send_bytes(encode(desync) + table.game_frame())
    else:
        conn.ok(re)


def on_resync(host: RelayHost, conn: Connection, msg: Resync, re: int | None) -> None:
    table = game_table(conn)
    conn.send(table.game_message(re))
