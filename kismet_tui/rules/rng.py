"""The one source of chance for every engine: a seeded stream specified in docs/protocol.md.

Every die and every shuffle of every game is drawn through an object with this interface
(`below`, `die`, `shuffle`, `state`), at fixed points of the rules, so that any client in any
language that follows the spec reaches the same game from the same seed. Python's `random`
module is not used: its algorithms are not promised to stay the same across versions.

The stream: block i is SHA-256(b"kismet-rng-v1" + seed + i as 8 bytes big-endian), for
i = 0, 1, 2, ...; the blocks' bytes are used in order. A 32-bit draw takes the next 4 bytes
as a big-endian unsigned integer. `below(n)` rejects draws at or above the largest multiple
of n that fits in 2**32, so every value is equally likely.
"""

from __future__ import annotations

import hashlib

DOMAIN = b"kismet-rng-v1"
TWO_32 = 1 << 32
MAX_SEED_BYTES = 64


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


class SeededRNG:
    """The documented stream. `state()` is plain data for the engine's digest."""

    __slots__ = ("_seed", "_block_index", "_block", "_offset", "_consumed")

    def __init__(self, seed: bytes | int | str):
        self._seed = seed_bytes(seed)
        self._block_index = 0
        self._block = b""
        self._offset = 0
        self._consumed = 0

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

    def below(self, n: int) -> int:
        """A uniform integer in 0 .. n-1, for 1 <= n <= 2**32."""
        if not 1 <= n <= TWO_32:
            raise ValueError("below(n) needs 1 <= n <= 2**32")
        limit = TWO_32 - (TWO_32 % n)
        while True:
            value = self.u32()
            if value < limit:
                return value % n

    def die(self) -> int:
        """One six-sided die: 1 .. 6."""
        return self.below(6) + 1

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the end, in place: for i = len-1 down to 1, swap i with below(i+1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def state(self) -> dict:
        # The seed plus how many bytes were used fixes everything still to come.
        return {"kind": "seeded", "seed": self._seed.hex(), "used": self._consumed}


class ScriptedRNG(SeededRNG):
    """For tests: dice come from a script first, everything else from a seeded stream.

    `ScriptedRNG([6, 6, 6, 6, 6, 1, 2])` makes the next seven dice those faces; once the
    script is used up, dice come from the stream too. Shuffles and `below` always use the
    stream, so a test chooses a deck by choosing a seed.
    """

    __slots__ = ("_script",)

    def __init__(self, dice=(), seed: bytes | int | str = b"scripted"):
        super().__init__(seed)
        for face in dice:
            if not (isinstance(face, int) and 1 <= face <= 6):
                raise ValueError(f"a scripted die is 1..6, not {face!r}")
        self._script = list(dice)

    def die(self) -> int:
        if self._script:
            return self._script.pop(0)
        return super().die()

    def push(self, *dice: int) -> None:
        """Add faces to the end of the script (handy in the middle of a test)."""
        self._script.extend(dice)

    def state(self) -> dict:
        state = super().state()
        state.update(kind="scripted", script=list(self._script))
        return state
