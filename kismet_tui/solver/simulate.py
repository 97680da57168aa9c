"""Many solitaire games at once, played by the policy of a value table, in the solver's own
model of the rules (vectorised with numpy). For the benchmark: tens of thousands of games
in seconds, whose mean must agree with the table's expectation. (The benchmark also plays a
sample through the real engine, kismet_tui.rules.dice, to check this model against it.)
"""

from __future__ import annotations

import numpy as np

from .space import (
    COUNT,
    FIVE_KIND,
    JOKER_BOXES,
    KEEP_INDEX,
    KEEPS,
    KISMET_J,
    LOWER_POINTS,
    LOWER_POINTS_JOKER,
    N_KEEPS,
    ROLLS,
    best_hold,
    expect_rolls,
    sub_keeps,
)
from .states import L_FILLED, L_FLAG, REWARD_U, SUCC_L, SUCC_L_REAL, SUCC_U, U_FILLED
from .turn import box_values, score_layer

FACES = np.arange(1, 7)
KEEP_COUNTS = np.array([[k.count(f) for f in range(1, 7)] for k in KEEPS])
KEEP_SIZE = KEEP_COUNTS.sum(axis=1)
# Face counts -> keep index (counts coded in base 6).
_CODE = 6 ** np.arange(6)
COUNTS_TO_KEEP = np.full(6**6, -1, dtype=np.intp)
COUNTS_TO_KEEP[KEEP_COUNTS @ _CODE] = np.arange(N_KEEPS)
# The holds within each roll (padded by repeating the first, the empty hold).
_subs = [[KEEP_INDEX[k] for k in sub_keeps(r)] for r in ROLLS]
SUB_KEEPS = np.array([s + [s[0]] * (32 - len(s)) for s in _subs], dtype=np.intp)
ROLL0 = N_KEEPS - len(ROLLS)


def _roll(rng: np.random.Generator, keep: np.ndarray) -> np.ndarray:
    """Roll the dice a hold leaves free: the index (0..251) of the resulting roll."""
    dice = rng.integers(1, 7, size=(len(keep), 5))
    free = np.arange(5)[None, :] < (5 - KEEP_SIZE[keep])[:, None]
    counts = KEEP_COUNTS[keep] + ((dice[:, :, None] == FACES) & free[:, :, None]).sum(axis=1)
    return COUNTS_TO_KEEP[counts @ _CODE] - ROLL0


def _hold(values: np.ndarray, roll: np.ndarray) -> np.ndarray:
    candidates = SUB_KEEPS[roll]  # (B, 32)
    best = values[candidates, np.arange(len(roll))[:, None]].argmax(axis=1)
    return candidates[np.arange(len(roll)), best]


def play(
    V: np.ndarray, games: int, seed: int, upper: int, lower: int, batch: int = 4000
) -> np.ndarray:
    """Points each game scores from the state (upper, lower) to the end, bonus included."""
    rng = np.random.default_rng(seed)
    out = []
    turns = 15 - int(U_FILLED[upper] + L_FILLED[lower])
    for start in range(0, games, batch):
        n = min(batch, games - start)
        u = np.full(n, upper, dtype=np.intp)
        l = np.full(n, lower, dtype=np.intp)
        points = np.zeros(n)
        rows = np.arange(n)
        for _ in range(turns):
            last = score_layer(V, u, l)
            keeps2 = expect_rolls(last)
            keeps1 = expect_rolls(best_hold(keeps2))
            roll = _roll(rng, np.zeros(n, dtype=np.intp))
            roll = _roll(rng, _hold(keeps1, roll))
            roll = _roll(rng, _hold(keeps2, roll))
            per_box = np.stack([values[roll, rows] for _, values in box_values(V, u, l)])
            box = per_box.argmax(axis=0)
            points += _score(u, l, box, roll)
        out.append(points)
    return np.concatenate(out)


def _score(u: np.ndarray, l: np.ndarray, box: np.ndarray, roll: np.ndarray) -> np.ndarray:
    """Points (bonus tiers included) of writing `roll` into `box`; moves u, l on in place."""
    gained = np.zeros(len(u))
    basic = box < 6
    b, r = box[basic], roll[basic]
    count = COUNT[b, r]
    gained[basic] = REWARD_U[u[basic], b, count]
    u[basic] = SUCC_U[u[basic], b, count]
    low = ~basic
    j, r, lj = box[low] - 6, roll[low], l[low]
    joker = (L_FLAG[lj] == 1) & np.isin(j, JOKER_BOXES)
    gained[low] = np.where(joker, LOWER_POINTS_JOKER[j, r], LOWER_POINTS[j, r])
    real = (j == KISMET_J) & FIVE_KIND[r]
    l[low] = np.where(real, SUCC_L_REAL[lj], SUCC_L[lj, j])
    return gained
