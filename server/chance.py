"""The host's secret for each game's chance (protocol version 3, docs/design.md "Fairness").

A table holds the secret of its next game from the moment the table exists (and again as soon
as a game ends), so its `commit` (rng.commitment: a domain-separated hash of the seed) is in
the table's state before anyone readies. At the start the stream is seeded with
`chance_seed(server_seed, entropy per seat)`; the host keeps the stream and the seed to itself
until the game's end record and last broadcast reveal the seed. A secret remembers the
derivation it was made for: a new one is the current version's, one taken up from a game
saved under version 2 keeps that game's. Only the host's table file (owner-readable, with the
seats' tokens) holds the seed of a running game, so a restarted host can take the game up
again.
"""

from __future__ import annotations

import os

from kismet_tui.rules.rng import (
    CHANCE_VERSION,
    ENTROPY_BYTES,
    SERVER_SEED_BYTES,
    SeededRNG,
    chance_seed,
    commitment,
)


class GameSecret:
    __slots__ = ("server_seed", "version", "commit")

    def __init__(self, server_seed: bytes | None = None, version: int = CHANCE_VERSION):
        self.server_seed = server_seed if server_seed is not None else os.urandom(SERVER_SEED_BYTES)
        self.version = version
        self.commit = commitment(self.server_seed, version)

    def stream(self, entropy: list) -> SeededRNG:
        """The game's stream of chance, from the seed and each seat's entropy (None: none)."""
        return SeededRNG(chance_seed(self.server_seed, entropy, self.version))

    @classmethod
    def from_hex(cls, text: object, version: int = CHANCE_VERSION) -> GameSecret | None:
        """The secret saved in a table file, or None if there is none or it is not 32 bytes;
        `version` is the derivation of the game it belongs to (its header's)."""
        if not isinstance(text, str):  # (a table file is the host's, but read as untrusted)
            return None
        try:
            raw = bytes.fromhex(text)
        except ValueError:
            return None
        return cls(raw, version) if len(raw) == SERVER_SEED_BYTES else None


def valid_entropy(value: object) -> bytes | None:
    """A seat's entropy as the header lists it: 16 bytes, or None."""
    if isinstance(value, (bytes, bytearray)) and len(value) == ENTROPY_BYTES:
        return bytes(value)
    return None
