"""Who a seat's player is for the records: an id derived from what proves them.

What proves a player, strongest first:
- their door's identity (server/doors/door_pass.py): an ssh key ("ssh-key SHA256:..."), a keyless
  ssh player's rejoin code, a browser's secret;
- the `player_key` their `kismet-join` (or `kismet`) sent in hello: a random secret it made
  once for this host and keeps (kismet_tui/player_key.py);
- nothing (an older client): the seat gets no id and no records.
A door session ignores any player_key: its client runs on the host's machine as the host's
user, so a key it read from that user's files would be the host's, not the player's.

The id is written into the game log's header (`players`, one per seat), so the records can
be built again from the logs. It is a one-way hash, so a shared replay shows no secret; the
same proof always gives the same id. Bots are players too, one per level: "bot:easy".
"""

from __future__ import annotations

import hashlib


def player_id(proof: str) -> str:
    """The id the records know a proof by (16 bytes of SHA-256, hex)."""
    return hashlib.sha256(b"kismet player id\x00" + proof.encode()).hexdigest()[:32]


def bot_id(level: str) -> str:
    return f"bot:{level}"


def proof_of(door_identity: str | None, player_key: str | None) -> str | None:
    """What proves a connection's player: its door's identity, else its player key."""
    if door_identity:
        return f"door {door_identity}"
    if player_key:
        return f"key {player_key}"
    return None
