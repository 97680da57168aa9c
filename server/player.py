"""Who someone is across reconnections: the `Player` (token, client id, name, their
connection and table), kept in the host's `players` by token (server/handshake.py makes and
forgets them)."""

from __future__ import annotations

from typing import NamedTuple

from .link import Link
from .records.proof import player_id
from .table import Table


class Player:
    """Who someone is across reconnections: their token, id and name, and what proves them."""

    __slots__ = ("token", "client_id", "name", "conn", "table", "proof")

    def __init__(self, token: str, client_id: int, name: str) -> None:
        self.token = token
        self.client_id = client_id
        self.name = name
        self.conn: Link | None = None
        self.table: Table | None = None
        # What the records know them by (server/records/proof.py), set at hello: their door's
        # identity or their player_key; None: unproven. One proof is one player here.
        self.proof: str | None = None

    def records_id(self) -> str | None:
        """The records' id of this player (server/records/proof.py), or None: unproven."""
        return player_id(self.proof) if self.proof else None


class ToldLater(NamedTuple):
    """What a player whose table is gone is told at their next hello, and the client id they
    come back with (None: theirs is not known, as after a restart)."""

    words: str
    client_id: int | None
