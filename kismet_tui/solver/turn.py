"""One turn of solitaire Kismet, evaluated for many states at once.

Given V (the expected rest-of-game score of every turn state, at least of the states one
box further on), a turn is three layers, as in the optimal Yahtzee solvers:
    after the 3rd roll: best box     L3[r] = max over open boxes (points + V[next state])
    after the 2nd roll: best hold    L2[r] = max over holds k in r of E[L3 | hold k]
    after the 1st roll: best hold    L1[r] = max over holds k in r of E[L2 | hold k]
    value of the state              V = E[L1 over a fresh roll]
Arrays are laid out (rolls or keeps, batch) so that the gathers copy whole rows.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .space import (
    COUNT,
    FIRST_ROLL_P,
    FIVE_KIND,
    JOKER_BOXES,
    KISMET_J,
    LOWER_POINTS,
    LOWER_POINTS_JOKER,
    N_ROLLS,
    best_hold,
    expect_rolls,
)
from .states import L_FLAG, OPEN_L, REWARD_U, SUCC_L, SUCC_L_REAL, SUCC_U

N_BOXES = 6 + LOWER_POINTS.shape[0]


def box_values(V: np.ndarray, u: np.ndarray, l: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (box number 0..14, values (252, B)): points now + V of the state that follows,
    for scoring each roll in that box; -inf where the box is already filled."""
    for b in range(6):
        per_count = REWARD_U[u, b, :] + V[SUCC_U[u, b, :], l[:, None]]  # (B, 6 counts)
        yield b, per_count.T[COUNT[b]]
    flag = L_FLAG[l].astype(bool)
    for j in range(LOWER_POINTS.shape[0]):
        open_j = OPEN_L[l, j]
        after = np.where(open_j, V[u, SUCC_L[l, j]], -np.inf)
        if j == KISMET_J:
            # The Kismet box is open only while the flag is off; a real Kismet sets it.
            real = np.where(open_j, V[u, SUCC_L_REAL[l]], -np.inf)
            values = np.where(
                FIVE_KIND[:, None],
                LOWER_POINTS[j][:, None] + real[None, :],
                LOWER_POINTS[j][:, None] + after[None, :],
            )
        elif j in JOKER_BOXES:
            points = np.where(
                flag[None, :], LOWER_POINTS_JOKER[j][:, None], LOWER_POINTS[j][:, None]
            )
            values = points + after[None, :]
        else:
            values = LOWER_POINTS[j][:, None] + after[None, :]
        yield 6 + j, values


def score_layer(V: np.ndarray, u: np.ndarray, l: np.ndarray) -> np.ndarray:
    best = np.full((N_ROLLS, len(u)), -np.inf)
    for _, values in box_values(V, u, l):
        np.maximum(best, values, out=best)
    return best


def turn_layers(last_roll: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From L3 (252, B): the keep values before the 3rd roll (K2) and before the 2nd (K1),
    and the value of each state before its first roll."""
    keeps2 = expect_rolls(last_roll)
    second = best_hold(keeps2)
    keeps1 = expect_rolls(second)
    first = best_hold(keeps1)
    return keeps2, keeps1, FIRST_ROLL_P @ first


def state_values(V: np.ndarray, u: np.ndarray, l: np.ndarray) -> np.ndarray:
    """The expected rest-of-game score of a batch of states, from V of the states after."""
    return turn_layers(score_layer(V, u, l))[2]
