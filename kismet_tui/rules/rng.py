"""The one source of chance for every engine, with two kinds of source behind one interface.

Every die and every card of every game is drawn through an object with this interface
(`below`, `die`, `state`), at fixed points of the rules (docs/protocol.md lists them):

- `SeededRNG`: the documented stream from a seed. The host holds one, seeded from its secret
  `server_seed` and the players' entropy (`chance_seed`, keyed by the secret since protocol
  version 3; `commitment` is the commit shown before the game), and records every value it
  returns (`take_drawn`), so each event can reveal exactly the values it drew. Verification redraws
  from the same stream and compares. Tests and version-1 logs use it with a plain seed.
- `RevealedRNG`: a client's source. It holds no seed: before each event the values that
  event revealed are fed in (`feed`), each call returns the next one, and a value that is
  missing, extra or out of range is refused (`ChanceError`, each kind in its own words).

`state()` is the same for both: how many values were drawn. The digest covers that, never a
seed or a stream position, so the host (with a stream) and a client (without) agree.
Python's `random` module is not used: its algorithms are not promised to stay the same.

The stream: block i is SHA-256(b"kismet-rng-v1" + seed + i as 8 bytes big-endian), for
i = 0, 1, 2, ...; the blocks' bytes are used in order. A 32-bit draw takes the next 4 bytes
as a big-endian unsigned integer. `below(n)` rejects draws at or above the largest multiple
of n that fits in 2**32, so every value is equally likely.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from .base import IllegalAction, Plain
from .refusal import MALFORMED

DOMAIN = b"kismet-rng-v1"
SERVER_SEED_BYTES = 32
ENTROPY_BYTES = 16
TWO_32 = 1 << 32
MAX_SEED_BYTES = 64


T = TypeVar("T")  # what a shuffle reorders


def seed_bytes(seed: bytes | int | str) -> bytes:
    """The seed as bytes: bytes as they are, an int as 8 bytes big-endian, a str as UTF-8.

    Ints and strings are a convenience for tests and replays typed by hand; the host always
    sends 16 random bytes.
    """
    if isinstance(seed, (bytes, bytearray)):
        raw = bytes(seed)
    elif isinstance(seed, bool):
        raise TypeError("a seed is bytes, an int or a str, not a bool")
    elif isinstance(seed, int):
        if not 0 <= seed < 1 << 64:
            raise ValueError("an int seed must be in 0 .. 2**64 - 1")
        raw = seed.to_bytes(8, "big")
    elif isinstance(seed, str):
        raw = seed.encode("utf-8")
    else:
        raise TypeError("a seed is bytes, an int or a str")
    if not 1 <= len(raw) <= MAX_SEED_BYTES:
        raise ValueError(f"a seed is 1 to {MAX_SEED_BYTES} bytes long")
    return raw


# The derivations of a game's commit and chance seed, by the protocol version that wrote the
# game (its header's `version`; docs/protocol.md "Chance"). Version 2 seeded the stream with
# sha256(server_seed || entropies) and committed to sha256(server_seed): with no entropy the
# chance seed WAS the public commit, so every die followed from the header. Version 3 keys the
# chance seed with the secret itself (HMAC) and domain-separates the commit, so nothing the
# header shows, entropy or none, is a function that gives a value.
CHANCE_VERSION = 3  # the derivation new games use
KNOWN_CHANCE_VERSIONS = (2, 3)  # the ones a log may carry and still verify
COMMIT_DOMAIN_V3 = b"kismet-commit-v3"
CHANCE_DOMAIN_V3 = b"kismet-chance-v3"


def chance_seed(
    server_seed: bytes, entropy: Iterable[bytes | None], version: int = CHANCE_VERSION
) -> bytes:
    """The 32-byte seed of a game's stream.

    Version 3: HMAC-SHA256 keyed with server_seed over "kismet-chance-v3", then for each seat
    in order one byte 0 (no entropy) or 1 followed by its 16 bytes. Version 2:
    sha256(server_seed || entropy of seat 0 || seat 1 || ...), a seat with none adding nothing.
    """
    if version == 2:
        digest = hashlib.sha256(bytes(server_seed))
        for part in entropy:
            if part is not None:
                digest.update(bytes(part))
        return digest.digest()
    _check_version(version)
    mac = hmac.new(bytes(server_seed), CHANCE_DOMAIN_V3, hashlib.sha256)
    for part in entropy:
        # The marker byte keeps "seat 1 gave none" apart from "seat 2 gave none".
        mac.update(b"\x00" if part is None else b"\x01" + bytes(part))
    return mac.digest()


def commitment(server_seed: bytes | bytearray, version: int = CHANCE_VERSION) -> str:
    """The commit shown before a game, as lowercase hex: version 3
    sha256("kismet-commit-v3" || server_seed), version 2 sha256(server_seed)."""
    if version == 2:
        return hashlib.sha256(bytes(server_seed)).hexdigest()
    _check_version(version)
    return hashlib.sha256(COMMIT_DOMAIN_V3 + bytes(server_seed)).hexdigest()


def header_chance_version(header: Mapping[str, Any]) -> int | None:
    """The derivation a game's header was written with: 1 (no commit: the seed is in the
    header), 2 (a commit and no `version`), or its `version`; None if that is not a known one."""
    if "commit" not in header:
        return 1
    version = header.get("version", 2)
    if isinstance(version, bool) or version not in KNOWN_CHANCE_VERSIONS:
        return None
    return int(version)


def _check_version(version: int) -> None:
    if version not in KNOWN_CHANCE_VERSIONS:
        raise ValueError(f"no chance derivation for protocol version {version}")


class SeededRNG:
    """The documented stream. Every value returned is also kept until `take_drawn()`."""

    __slots__ = ("_seed", "_block_index", "_block", "_offset", "_consumed", "drawn", "_taken")

    def __init__(self, seed: bytes | int | str):
        self._seed = seed_bytes(seed)
        self._block_index = 0
        self._block = b""
        self._offset = 0
        self._consumed = 0
        self.drawn: list[int] = []  # every value returned so far, in order
        self._taken = 0  # how many of them take_drawn() has handed out

    def _next_bytes(self, count: int) -> bytes:
        offset = self._offset
        if offset + count <= len(self._block):  # the common case: within the current block
            self._offset = offset + count
            self._consumed += count
            return self._block[offset : offset + count]
        out = bytearray()
        while len(out) < count:
            if self._offset >= len(self._block):
                self._block = hashlib.sha256(
                    DOMAIN + self._seed + self._block_index.to_bytes(8, "big")
                ).digest()
                self._block_index += 1
                self._offset = 0
            take = min(count - len(out), len(self._block) - self._offset)
            out += self._block[self._offset : self._offset + take]
            self._offset += take
        self._consumed += count
        return bytes(out)

    def u32(self) -> int:
        return int.from_bytes(self._next_bytes(4), "big")

    def _below(self, n: int) -> int:
        if not 1 <= n <= TWO_32:
            raise ValueError("below(n) needs 1 <= n <= 2**32")
        limit = TWO_32 - (TWO_32 % n)
        while True:
            value = self.u32()
            if value < limit:
                return value % n

    def below(self, n: int) -> int:
        """A uniform integer in 0 .. n-1, for 1 <= n <= 2**32."""
        value = self._below(n)
        self.drawn.append(value)
        return value

    def die(self) -> int:
        """One six-sided die: 1 .. 6 (below(6) + 1; revealed as the face)."""
        face = self._below(6) + 1
        self.drawn.append(face)
        return face

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates from the end, in place: for i = len-1 down to 1, swap i with below(i+1).
        No engine shuffles any more (a shuffle would fix a hidden order up front); playouts
        and tests still may."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    @property
    def bytes_used(self) -> int:
        return self._consumed

    def take_drawn(self) -> list[int]:
        """The values drawn since the last call: what the event just applied reveals."""
        new = self.drawn[self._taken :]
        self._taken = len(self.drawn)
        return new

    def mark(self) -> tuple[int, int]:
        """A position to come back to with `rewind` (the host undoes the draws of an action
        the rules refused after drawing, so the stream never skips values)."""
        return (self._consumed, len(self.drawn))

    def rewind(self, mark: tuple[int, int]) -> None:
        consumed, count = mark
        if consumed != self._consumed:
            self._block_index = consumed // 32
            self._offset = 32
            self._block = b"\0" * 32  # forces the next read to hash block _block_index
            self._consumed = consumed
            skip = consumed % 32
            if skip:
                self._next_bytes(skip)
                self._consumed = consumed
        del self.drawn[count:]
        self._taken = min(self._taken, count)

    def state(self) -> Plain:
        # How many values were drawn: the same for the host's stream and a client's revealed
        # values, so digests agree; the seed and the byte position stay out of it.
        return {"drawn": len(self.drawn)}


class ChanceError(IllegalAction):
    """The chance an event revealed does not fit what the rules draw (a MALFORMED refusal).
    `mismatch` is "missing", "extra" or "range"."""

    def __init__(self, mismatch: str, words: str) -> None:
        super().__init__(words, MALFORMED)
        self.mismatch = mismatch


class RevealedRNG:
    """A client's source of chance: the values each event revealed, fed in before it applies.

    It draws nothing itself. `feed(values)` gives the next event's values; each `die()` or
    `below(n)` returns the next one after checking its range; `done()` after the event
    refuses any value left over.
    """

    __slots__ = ("_values", "_next", "_count")

    def __init__(self) -> None:
        self._values: Sequence[object] = ()
        self._next = 0
        self._count = 0

    def feed(self, values: object) -> None:
        if values is None:
            values = ()
        elif not isinstance(values, (list, tuple)):
            raise ChanceError("range", "The host sent chance that is not a list of numbers.")
        self._values = values
        self._next = 0

    def _value(self, what: str) -> int:
        if self._next >= len(self._values):
            raise ChanceError(
                "missing",
                f"The host did not send the {what} this move needs: "
                f"{len(self._values)} values came, more were drawn.",
            )
        value = self._values[self._next]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ChanceError("range", f"The host sent {value!r} as a {what}: not a whole number.")
        self._next += 1
        self._count += 1
        return value

    def die(self) -> int:
        face = self._value("die")
        if not 1 <= face <= 6:
            raise ChanceError("range", f"The host sent {face} as a die: a die shows 1 to 6.")
        return face

    def below(self, n: int) -> int:
        value = self._value("draw")
        if not 0 <= value < n:
            raise ChanceError("range", f"The host sent {value} for a draw from 0 to {n - 1}.")
        return value

    def shuffle(self, items: list[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def done(self) -> None:
        """After an event: every value it revealed must have been drawn."""
        # (Nothing to reset: every value was used, so a draw before the next feed is missing.)
        left = len(self._values) - self._next
        if left:
            self._values, self._next = (), 0
            raise ChanceError(
                "extra",
                f"The host sent {left} more chance value"
                f"{'s' if left > 1 else ''} than this move draws.",
            )

    def state(self) -> Plain:
        return {"drawn": self._count}


class ScriptedRNG(SeededRNG):
    """For tests: dice come from a script first, everything else from a seeded stream.

    `ScriptedRNG([6, 6, 6, 6, 6, 1, 2])` makes the next seven dice those faces; once the
    script is used up, dice come from the stream too. Shuffles and `below` always use the
    stream, so a test chooses a deck by choosing a seed.
    """

    __slots__ = ("_script",)

    def __init__(self, dice: Iterable[int] = (), seed: bytes | int | str = b"scripted"):
        super().__init__(seed)
        for face in dice:
            if not (isinstance(face, int) and 1 <= face <= 6):
                raise ValueError(f"a scripted die is 1..6, not {face!r}")
        self._script = list(dice)

    def die(self) -> int:
        if self._script:
            face = self._script.pop(0)
            self.drawn.append(face)
            return face
        return super().die()

    def push(self, *dice: int) -> None:
        """Add faces to the end of the script (handy in the middle of a test)."""
        self._script.extend(dice)
