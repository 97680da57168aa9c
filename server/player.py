"""Who someone is across reconnections: the `Player` (token, client id, name, their
connection and table), kept in the host's `players` by token (server/handshake.py makes and
forgets them)."""

from __future__ import annotations

from .link import Link
from .records.proof import player_id, proof_of
from .table import Table


class Player:
    """Who someone is across reconnections: their token, id and name."""

    __slots__ = ("token", "client_id", "name", "conn", "table", "player_key")

    def __init__(self, token: str, client_id: int, name: str) -> None:
        self.token = token
        self.client_id = client_id
        self.name = name
        self.conn: Link | None = None
        self.table: Table | None = None
        self.player_key: str | None = None  # hello's: what the records know them by

    def records_id(self) -> str | None:
        """The records' id of this player (server/records/proof.py), or None: unproven."""
        door = self.conn.door if self.conn is not None else None
        if door is not None:  # a door session: only the door's proof counts
            proof = proof_of(door.identity, None)
        else:
            proof = proof_of(None, self.player_key)
        return player_id(proof) if proof else None
