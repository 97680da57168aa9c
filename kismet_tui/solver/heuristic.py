"""A cheap stand-in for the optimal table: each open box is worth a fixed "par" and the
Basic bonus is estimated from how far the total is from each tier.

approximate_table() has the shape of the optimal V (states.py) and is built in
milliseconds, so the same turn evaluation (advice.py) plays well with it: it holds dice for
the best expected turn, but judges the future only roughly. It backs the medium bot, and
the hard bot and the hints while the optimal table is missing.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from kismet_tui.rules import dice as rules

from .space import LOWER_BOXES
from .states import ALL_BASIC, L_FLAG, L_MASK, N_LOWER_BOXES, U_MASK, U_TOTAL

# What an open box is worth to the rest of the game (its opportunity cost, not its average:
# the averages the optimal policy scores per box make a weaker player, 290 against 306;
# these were tuned by self-play with simulate.py, 3000 games per variant).
BASIC_PAR = {face: 3.0 * face for face in range(1, 7)}
LOWER_PAR = {
    "two_pair_same_color": 21.0,
    "three_of_a_kind": 23.0,
    "straight": 23.0,
    "flush": 20.0,
    "full_house": 29.0,
    "full_house_same_color": 20.0,
    "four_of_a_kind": 26.0,
    "yarborough": 23.0,
    "kismet": 22.0,
}
# What a real Kismet adds to each open box that a joker may fill with more than usual.
JOKER_PAR = 2.0


def _bonus_estimate(
    total: np.ndarray, expected_more: np.ndarray, open_count: np.ndarray
) -> np.ndarray:
    """Expected bonus still to come, with the final total spread around its mean."""
    final = total + expected_more
    spread = 1.0 + 3.0 * np.sqrt(open_count)
    estimate = np.zeros_like(final, dtype=float)
    previous = 0
    for lowest, bonus in sorted((t, b) for t, b in rules.BONUS_TIERS):
        chance = 1.0 / (1.0 + np.exp(-(final - lowest + 0.5) / spread))
        estimate += (bonus - previous) * chance
        previous = bonus
    already = np.array([rules.basic_bonus(int(t)) for t in total])
    return np.maximum(estimate - already, 0.0)


@lru_cache(maxsize=1)
def approximate_table() -> np.ndarray:
    open_faces = [[face for face in range(1, 7) if not m >> (face - 1) & 1] for m in U_MASK]
    expected_more = np.array([sum(BASIC_PAR[f] for f in faces) for faces in open_faces])
    open_count = np.array([len(faces) for faces in open_faces])
    upper = expected_more + _bonus_estimate(U_TOTAL.astype(float), expected_more, open_count)
    upper[U_MASK == ALL_BASIC] = 0.0
    par = np.array([LOWER_PAR[box] for box in LOWER_BOXES])
    open_lower = np.array([[not m >> j & 1 for j in range(N_LOWER_BOXES)] for m in L_MASK])
    lower = open_lower @ par
    jokerable = open_lower[
        :, [LOWER_BOXES.index("full_house"), LOWER_BOXES.index("full_house_same_color")]
    ].sum(axis=1)
    lower += L_FLAG * JOKER_PAR * jokerable
    return upper[:, None] + lower[None, :]
