"""The dice side of the solver: every roll and every hold of five dice, and what rolls score.

A hold ("keep") is a multiset of 0..5 faces, stored as a sorted tuple. There are 462 of them;
the 252 holds of five dice are exactly the possible rolls. Keeps are indexed by size, then
lexicographically, so the rolls are the last 252 indices (ROLL0 onwards).

Two small lattices make a turn cheap to evaluate for many states at once:
- ADD[k, f]: the keep k with one more die showing face f (for keeps of fewer than five dice).
  The value of rolling the missing dice of k is the mean over f of the value of ADD[k, f].
- SUB[k, j]: the keep k with one die of its j-th distinct face removed (padded by repeating).
  The best hold within a roll is a maximum over this lattice.

Score tables come from the engine's own `kismet_tui.rules.dice.score`, so the solver can not
disagree with the game about what a box pays.
"""

from __future__ import annotations

import functools
import hashlib
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from kismet_tui.rules import dice as rules

FACES = (1, 2, 3, 4, 5, 6)

KEEPS: list[tuple[int, ...]] = [
    keep for size in range(6) for keep in combinations_with_replacement(FACES, size)
]
KEEP_INDEX: dict[tuple[int, ...], int] = {keep: i for i, keep in enumerate(KEEPS)}
SIZE_START = [sum(1 for k in KEEPS if len(k) < size) for size in range(7)]  # 0,1,7,28,84,210,462
ROLL0 = SIZE_START[5]
ROLLS: list[tuple[int, ...]] = KEEPS[ROLL0:]
ROLL_INDEX: dict[tuple[int, ...], int] = {roll: i for i, roll in enumerate(ROLLS)}
N_KEEPS = len(KEEPS)
N_ROLLS = len(ROLLS)


def _multinomial_probability(roll: tuple[int, ...]) -> float:
    ways = factorial(len(roll))
    for face in set(roll):
        ways //= factorial(roll.count(face))
    return ways / 6 ** len(roll)


# Chance of each roll when all five dice are thrown.
FIRST_ROLL_P = np.array([_multinomial_probability(r) for r in ROLLS])

ADD = np.array(
    [[KEEP_INDEX[tuple(sorted(k + (f,)))] for f in FACES] for k in KEEPS[:ROLL0]], dtype=np.intp
)


def _remove_one(keep: tuple[int, ...], face: int) -> tuple[int, ...]:
    at = keep.index(face)
    return keep[:at] + keep[at + 1 :]


SUB = np.zeros((N_KEEPS, 5), dtype=np.intp)
for _i, _k in enumerate(KEEPS):
    if _k:
        _children = [KEEP_INDEX[_remove_one(_k, f)] for f in sorted(set(_k))]
        SUB[_i] = (_children * 5)[:5]
del _i, _k

# COUNT[f - 1, r]: how many dice of roll r show face f.
COUNT = np.array([[r.count(f) for r in ROLLS] for f in FACES], dtype=np.intp)
FIVE_KIND = np.array([len(set(r)) == 1 for r in ROLLS])
ROLL_SUM = np.array([sum(r) for r in ROLLS])

# Points each Kismet-section box pays for each roll: plain, and as a joker (five of a kind
# scored while the player's Kismet box holds a Kismet; only differs for five of a kind).
LOWER_BOXES = rules.KISMET_BOXES
LOWER_POINTS = np.array(
    [[rules.score(box, r) for r in ROLLS] for box in LOWER_BOXES], dtype=np.float64
)
LOWER_POINTS_JOKER = np.array(
    [[rules.score(box, r, joker=len(set(r)) == 1) for r in ROLLS] for box in LOWER_BOXES],
    dtype=np.float64,
)
KISMET_J = LOWER_BOXES.index("kismet")
# Lower boxes whose points change with the joker (computed, not assumed).
JOKER_BOXES = tuple(
    j for j in range(len(LOWER_BOXES)) if not np.array_equal(LOWER_POINTS[j], LOWER_POINTS_JOKER[j])
)


@functools.cache
def rules_fingerprint() -> str:
    """A short hash of everything the solver takes from the rules: a rules change makes a new
    cache file name, so an old table is never used with new rules. Worked out once per
    process (the rules cannot change under it): it scores every roll in every box, some
    milliseconds, and the host asks for the table's file name at every dice game's end."""
    h = hashlib.sha256()
    h.update(LOWER_POINTS.tobytes())
    h.update(LOWER_POINTS_JOKER.tobytes())
    h.update(np.array([[rules.score(b, r) for r in ROLLS] for b in rules.BASIC_BOXES]).tobytes())
    h.update(np.array([rules.basic_bonus(t) for t in range(100)]).tobytes())
    h.update(repr(rules.BOXES).encode())
    return h.hexdigest()[:12]


def expect_rolls(rolls: np.ndarray) -> np.ndarray:
    """Value of every keep (462, B) given the value of every roll (252, B): rolling the
    missing dice of a keep, one die at a time, is an average over that die's face."""
    batch = rolls.shape[1:]
    keeps = np.empty((N_KEEPS,) + batch, dtype=rolls.dtype)
    keeps[ROLL0:] = rolls
    for size in range(4, -1, -1):
        lo, hi = SIZE_START[size], SIZE_START[size + 1]
        part = keeps[lo:hi]
        np.copyto(part, keeps[ADD[lo:hi, 0]])
        for f in range(1, 6):
            part += keeps[ADD[lo:hi, f]]
        part *= 1.0 / 6.0
    return keeps


def best_hold(keeps: np.ndarray) -> np.ndarray:
    """Value of every roll (252, B) when the player holds the best part of it: the maximum
    of `keeps` over all sub-multisets of each roll (holding all five = stopping)."""
    best = keeps.copy()
    for size in range(1, 6):
        lo, hi = SIZE_START[size], SIZE_START[size + 1]
        part = best[lo:hi]
        for j in range(5):  # row by row gathers are much faster than one 3-d gather
            np.maximum(part, best[SUB[lo:hi, j]], out=part)
    return best[ROLL0:]


def sub_keeps(roll: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct hold within a roll, smallest first."""
    out: set[tuple[int, ...]] = {()}
    for face in roll:
        out |= {tuple(sorted(k + (face,))) for k in out}
    return sorted(out, key=lambda k: (len(k), k))
