"""The solver's turn states, and what scoring a box does to them.

A turn state is what the rest of a solitaire game depends on, split in two parts:
- the upper part: which Basic boxes are filled and their total, capped at 78 (the bonus
  tiers 63/71/78 are all that the total decides). Once all six are filled the total no
  longer matters and is stored as 0, because the bonus is paid the moment a tier is reached.
- the lower part: which Kismet-section boxes are filled, and whether the Kismet box holds a
  real Kismet (the flag that makes a later five of a kind a joker [D4]/[D5]). The flag can
  only be set once the Kismet box is filled.
Only reachable upper parts are indexed (the totals the filled boxes can make), so the value
table is V[upper, lower] with 2937 x 1024 entries, about 2.26 million of them reachable.
"""

from __future__ import annotations

import numpy as np

from kismet_tui.rules import dice as rules

from .space import KISMET_J, LOWER_BOXES

CAP = 78
ALL_BASIC = (1 << 6) - 1
N_LOWER_BOXES = len(LOWER_BOXES)
ALL_LOWER = (1 << N_LOWER_BOXES) - 1
KISMET_BIT = 1 << KISMET_J


def _reachable_totals(mask: int) -> list[int]:
    if mask == ALL_BASIC:
        return [0]
    totals = {0}
    for b in range(6):
        if mask >> b & 1:
            face = b + 1
            totals = {min(CAP, t + face * n) for t in totals for n in range(6)}
    return sorted(totals)


U_MASK_LIST: list[int] = []
U_TOTAL_LIST: list[int] = []
UPPER_INDEX = np.full((ALL_BASIC + 1, CAP + 1), -1, dtype=np.intp)
for _m in range(ALL_BASIC + 1):
    for _t in _reachable_totals(_m):
        UPPER_INDEX[_m, _t] = len(U_MASK_LIST)
        U_MASK_LIST.append(_m)
        U_TOTAL_LIST.append(_t)
U_MASK = np.array(U_MASK_LIST, dtype=np.intp)
U_TOTAL = np.array(U_TOTAL_LIST, dtype=np.intp)
U_FILLED = np.array([bin(m).count("1") for m in U_MASK_LIST], dtype=np.intp)
N_UPPER = len(U_MASK)

N_LOWER = (ALL_LOWER + 1) * 2
L_MASK = np.arange(N_LOWER) // 2
L_FLAG = np.arange(N_LOWER) % 2
L_REACHABLE = (L_FLAG == 0) | ((L_MASK & KISMET_BIT) != 0)
L_FILLED = np.array([bin(m).count("1") for m in L_MASK], dtype=np.intp)

# Scoring Basic box b with c dice of its face: the next upper part and the points earned now
# (box points plus any bonus tier newly reached). Closed boxes: -inf points.
SUCC_U = np.empty((N_UPPER, 6, 6), dtype=np.intp)
REWARD_U = np.full((N_UPPER, 6, 6), -np.inf)
for _u in range(N_UPPER):
    _m, _t = U_MASK_LIST[_u], U_TOTAL_LIST[_u]
    for _b in range(6):
        if _m >> _b & 1:
            SUCC_U[_u, _b, :] = _u
            continue
        _m2 = _m | 1 << _b
        for _c in range(6):
            _raw = _t + (_b + 1) * _c
            _t2 = 0 if _m2 == ALL_BASIC else min(CAP, _raw)
            SUCC_U[_u, _b, _c] = UPPER_INDEX[_m2, _t2]
            REWARD_U[_u, _b, _c] = (_b + 1) * _c + rules.basic_bonus(_raw) - rules.basic_bonus(_t)

# Scoring Kismet-section box j: the next lower part (for the Kismet box: when scratched;
# SUCC_L_REAL when filled with a real Kismet).
OPEN_L = np.array([[not (m >> j & 1) for j in range(N_LOWER_BOXES)] for m in L_MASK])
SUCC_L = np.array(
    [[(m | 1 << j) * 2 + f for j in range(N_LOWER_BOXES)] for m, f in zip(L_MASK, L_FLAG)],
    dtype=np.intp,
)
SUCC_L_REAL = (L_MASK | KISMET_BIT) * 2 + 1
del _m, _t, _u, _b, _m2, _c, _raw, _t2


def upper_index(filled_basic_mask: int, basic_total: int) -> int:
    total = 0 if filled_basic_mask == ALL_BASIC else min(CAP, basic_total)
    index = int(UPPER_INDEX[filled_basic_mask, total])
    if index < 0:
        raise ValueError(
            f"no Basic section can hold {basic_total} with mask {filled_basic_mask:06b}"
        )
    return index


def lower_index(filled_lower_mask: int, real_kismet: bool) -> int:
    if real_kismet and not filled_lower_mask & KISMET_BIT:
        raise ValueError("a real Kismet needs the Kismet box filled")
    return filled_lower_mask * 2 + int(real_kismet)


def state_of(filled: set[str] | dict, basic_total: int, real_kismet: bool) -> tuple[int, int]:
    """(upper, lower) indices of a scorecard: `filled` names the filled boxes."""
    upper = sum(1 << b for b, box in enumerate(rules.BASIC_BOXES) if box in filled)
    lower = sum(1 << j for j, box in enumerate(LOWER_BOXES) if box in filled)
    return upper_index(upper, basic_total), lower_index(lower, real_kismet)


def level_states(level: int) -> tuple[np.ndarray, np.ndarray]:
    """Every reachable (upper, lower) pair with `level` boxes filled, as two index arrays."""
    us, ls = [], []
    for filled_upper in range(0, 7):
        filled_lower = level - filled_upper
        if not 0 <= filled_lower <= N_LOWER_BOXES:
            continue
        u = np.flatnonzero(U_FILLED == filled_upper)
        lo = np.flatnonzero((L_FILLED == filled_lower) & L_REACHABLE)
        us.append(np.repeat(u, len(lo)))
        ls.append(np.tile(lo, len(u)))
    return np.concatenate(us), np.concatenate(ls)
