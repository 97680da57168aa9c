"""What the host gives its jobs, as a typed Protocol: the job objects and the shared tables
and players, never the `Host` class itself.

The request handlers (server/handshake.py, lobby.py, starting.py, relay.py, resume.py,
table_share.py, records_request.py) take a `Jobs`; server/host.py's `Host` is the one that
satisfies it. Each job's state lives in its own object: the connections' in the `Gate`
(server/connection.py), the owner's steering in `Steering` (server/steering.py), the pushed
table list in `TableListFeed` (server/table_list.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Protocol

from .connection import Gate
from .doors.door_pass import DoorPasses
from .player import Player, ToldLater
from .records import RecordIndex
from .steering import Steering
from .table import Seat, Table, TableHost
from .table_list import TableListFeed


class Jobs(TableHost, Protocol):
    """The host as its jobs see it."""

    gate: Gate
    steering: Steering
    table_list: TableListFeed
    door_passes: DoorPasses
    records: RecordIndex
    # Open tables one player may own (server/table_share.py; None: no cap).
    tables_per_player: int | None
    max_bots: int | None  # bots running at once (None: no cap)
    bots_per_player: int | None  # bots at the tables one player opened (None: no cap)
    # Token -> words for the players of a set-aside table, or of a game closed while they
    # were away, told at their next hello.
    set_aside: dict[str, ToldLater]
    client_ids: Iterator[int]  # the next player's client id
    # `kismet`'s own host: a game with one human pauses while they are away
    # (server/table_share.py), and is offered again after a restart.
    pause_alone: bool

    @property
    def players(self) -> dict[str, Player]: ...  # by token

    @property
    def tables(self) -> dict[int, Table]: ...

    def can_run_bots(self) -> bool: ...

    def host_key(self) -> bytes | None:
        """The host's 32-byte public key, which signs its games (server/identity.py): the
        `welcome` carries it, so clients remember it; None if its key file cannot be used."""

    def bot_levels(self) -> Collection[str] | None:
        """The bot levels this host knows (None: it does not say)."""

    def spawn_bot(self, table: Table, seat: Seat) -> None:
        """Start the bot client that takes the reserved `seat`."""
