"""The fast build of the optimal table: the same values as turn.state_values, a few times
quicker, by doing less work per state and keeping the work in the CPU's cache.

Per batch of turn states (one level: the same number of filled boxes) it evaluates the same
three turn layers as turn.py, with these differences:
- The last layer (best box for each roll) is not built box by box over all 252 rolls. The
  Kismet-section boxes pay either the dice's sum plus a constant or a fixed amount, so the
  rolls that are not five of a kind fall into a handful of "signatures" (which boxes they
  meet, and how); per state one value per signature and kind is enough, then two gathers
  spread them over the rolls. The six five-of-a-kind rolls (joker and real Kismet) are done
  apart. The signatures are computed from the score tables, never assumed.
- The keep lattice is walked with preallocated buffers (np.take(out=), in a mode that does
  not buffer), and within each size the keeps are ordered by how many distinct faces they
  hold, so the best-hold maximum only visits real sub-keeps (turn.py pads them by repeating).
  The Basic boxes likewise: one best scratch per set of absent faces, then one gather per
  face the roll shows.
- Basic totals that can no longer change the bonus the way the future fills the section are
  the same state, and so are the joker flag on and off once no box it pays more in is open:
  only one state of each such class is solved (2937 upper parts make 1878 classes), the
  others copy its value.
- The batch is small (its arrays stay in the L2 cache), V is read transposed with the states
  in (lower, upper) order (the values a batch reads lie close together), and two threads
  share a level: numpy releases the GIL inside every operation, and the Python between them
  is about a tenth of a batch's time. (Two processes sharing V were measured too, on the
  shared machine: about 10 % less CPU than two threads, but no clearer gain in wall time,
  9 to 11 s either way; not worth a second code path.)
Float64 all through: float32 would give about 1e-5, not the 1e-9 the table is checked to.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kismet_tui.rules import dice as rules

from . import space
from .space import (
    FIRST_ROLL_P,
    FIVE_KIND,
    KEEPS,
    KISMET_J,
    LOWER_POINTS,
    LOWER_POINTS_JOKER,
    ROLL_SUM,
)
from .states import (
    ALL_BASIC,
    CAP,
    L_FLAG,
    L_MASK,
    N_LOWER,
    N_UPPER,
    OPEN_L,
    REWARD_U,
    SUCC_L,
    SUCC_L_REAL,
    SUCC_U,
    UPPER_INDEX,
    level_states,
)

BATCH = 384  # states per batch: (462, BATCH) float64 is 1.4 MB
N_LOWER_BOXES = LOWER_POINTS.shape[0]

# --- the keep lattice in the builder's own order --------------------------------------------
# Within each size, keeps with more distinct faces first: then the keeps that have at least
# j + 1 distinct sub-keeps one die smaller are a prefix of their size's rows.
_distinct = [len(set(k)) for k in KEEPS]
ORDER = sorted(range(len(KEEPS)), key=lambda i: (len(KEEPS[i]), -_distinct[i], i))
POS = np.empty(len(KEEPS), dtype=np.intp)
POS[ORDER] = np.arange(len(KEEPS))
SIZE_START = space.SIZE_START
ROLL0 = space.ROLL0
N_KEEPS = space.N_KEEPS
N_ROLLS = space.N_ROLLS
# ADD[k, f] and SUB[k, j] of space.py, in the new order.
ADD = POS[space.ADD[np.array(ORDER[:ROLL0])]]
SUB = POS[space.SUB[np.array(ORDER)]]
# For each size and j: how many of its rows have a (j + 1)-th distinct sub-keep.
SUB_ROWS = [
    [sum(1 for i in ORDER[SIZE_START[s] : SIZE_START[s + 1]] if _distinct[i] > j) for j in range(5)]
    for s in range(6)
]
# Rolls (the last 252 keeps) in the new order: ROLL_AT[q] is space's roll index of row q.
ROLL_AT = np.array(ORDER[ROLL0:]) - ROLL0
P_FIRST = FIRST_ROLL_P[ROLL_AT]

# --- the last layer's tables, per roll in the new order -------------------------------------
COUNT = space.COUNT[:, ROLL_AT]  # (6 faces, 252)
# A roll's Basic choices: scratch one of the faces it lacks (the best of those is one value
# per set of absent faces, ABSENT[q] as a 6-bit mask), or score one of the faces it shows:
# PRESENT[j, q] is the row of (box, count) in a (36, B) array for its j-th face. Rolls with
# more distinct faces come first, so the rolls with a j-th face are the first N_PRESENT[j].
ABSENT = (COUNT == 0).T @ (1 << np.arange(6))
PRESENT = np.zeros((5, N_ROLLS), dtype=np.intp)
for _q in range(N_ROLLS):
    for _j, _b in enumerate(np.flatnonzero(COUNT[:, _q])):
        PRESENT[_j, _q] = 6 * _b + COUNT[_b, _q]
_faces_shown = (COUNT > 0).sum(axis=0)
N_PRESENT = [int((_faces_shown > j).sum()) for j in range(5)]
assert all((COUNT[:, :n] > 0).sum(axis=0).min() > j for j, n in enumerate(N_PRESENT))
# Five of a kind has one distinct face: those six rolls come last.
N_PLAIN = N_ROLLS - 6
assert FIVE_KIND[ROLL_AT[N_PLAIN:]].all() and not FIVE_KIND[ROLL_AT[:N_PLAIN]].any()


def _signatures() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split the Kismet-section boxes into 'sum + constant' boxes and fixed-points boxes (from
    the score tables), and group the plain rolls by what each box pays them."""
    points = LOWER_POINTS[:, ROLL_AT]
    sums = ROLL_SUM[ROLL_AT].astype(np.float64)
    plain = ~FIVE_KIND[ROLL_AT]
    sum_box = []
    for j in range(N_LOWER_BOXES):
        met = plain & (points[j] > 0)
        extra = np.unique(points[j][met] - sums[met])
        sum_box.append(len(extra) == 1)
    keys: dict[tuple, int] = {}
    sig_of_roll = np.zeros(N_ROLLS, dtype=np.intp)
    for r in np.flatnonzero(plain):
        key = tuple(
            ("sum", points[j, r] - sums[r])
            if sum_box[j] and points[j, r] > 0
            else ("fixed", points[j, r])
            for j in range(N_LOWER_BOXES)
        )
        sig_of_roll[r] = keys.setdefault(key, len(keys))
    n = len(keys)
    sum_const = np.full((n, N_LOWER_BOXES), -np.inf)
    fixed_const = np.full((n, N_LOWER_BOXES), -np.inf)
    for key, s in keys.items():
        for j, (kind, value) in enumerate(key):
            (sum_const if kind == "sum" else fixed_const)[s, j] = value
    return sig_of_roll, sum_const, fixed_const, sums


SIG_OF_ROLL, SUM_CONST, FIXED_CONST, SUMS = _signatures()
N_SIGS = len(SUM_CONST)
SIG_PLAIN = SIG_OF_ROLL[:N_PLAIN]
SUMS_PLAIN = SUMS[:N_PLAIN, None]
FIVE_POINTS = LOWER_POINTS[:, ROLL_AT[N_PLAIN:]]  # (9 boxes, 6 rolls)
FIVE_POINTS_JOKER = LOWER_POINTS_JOKER[:, ROLL_AT[N_PLAIN:]]
REAL = N_LOWER_BOXES  # in last_layer, row 9 of `after`: V after a real Kismet in its box


def _pick_rows() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Kismet-section candidates of last_layer: row i of `cand` is `after[CAND_BOX[i]]`
    plus CAND_ADD[i] (0: a scratch; else a sum box's constant or a box's points), then a
    last row of -inf. Column c of PICKS lists the rows whose maximum is value c, padded with
    the -inf row: per signature its best 'sum' box, then per signature its best fixed-points
    or scratched box, then the six five-of-a-kind rolls, plain, then as a joker."""
    rows = {(j, 0.0): j for j in range(N_LOWER_BOXES)}
    picks: list[list[int]] = []

    def pick(pairs: Iterable[tuple[int, float]]) -> None:
        picks.append([rows.setdefault((j, float(c)), len(rows)) for j, c in pairs])

    for consts in (SUM_CONST, FIXED_CONST):
        for s in range(N_SIGS):
            pick((j, c) for j, c in enumerate(consts[s]) if np.isfinite(c))
    for points in (FIVE_POINTS, FIVE_POINTS_JOKER):
        for q in range(6):
            pick((REAL if j == KISMET_J else j, points[j, q]) for j in range(N_LOWER_BOXES))
    width = max(map(len, picks))
    box = np.array([j for j, _ in rows] + [0])
    add = np.array([c for _, c in rows] + [-np.inf])[:, None]
    return box, add, np.array([p + [len(rows)] * (width - len(p)) for p in picks]).T


CAND_BOX, CAND_ADD, PICKS = _pick_rows()


class _Buffers:
    """Work arrays of one thread, reused batch after batch."""

    def __init__(self, batch: int):
        self.keeps = np.empty((N_KEEPS, batch))
        self.tmp = np.empty((N_KEEPS, batch))


_local = threading.local()


def _buffers(batch: int) -> _Buffers:
    found = getattr(_local, "buffers", None)
    if found is None or found.keeps.shape[1] != batch:
        found = _local.buffers = _Buffers(batch)
    return found


def last_layer(
    VT: np.ndarray, u: np.ndarray, l: np.ndarray, out: np.ndarray, tmp: np.ndarray
) -> None:
    """out (252 rolls in the builder's order, B) = best box for each roll: points now plus V
    of the state after (turn.score_layer, in less work). VT is V transposed (see build)."""
    B = len(u)
    tmp = tmp[:N_ROLLS]
    # Basic boxes: one value per (box, count of its face), spread over the rolls.
    w = REWARD_U[u] + VT[l[:, None, None], SUCC_U[u]]  # (B, 6, 6); closed: -inf
    w36 = np.ascontiguousarray(w.reshape(B, 36).T)
    scratch = np.empty((64, B))  # [mask]: the best scratch among the faces in mask
    scratch[0] = -np.inf
    for b in range(6):  # the masks whose highest face is b + 1: those below, or face b + 1
        np.maximum(scratch[: 1 << b], w36[6 * b], out=scratch[1 << b : 2 << b])
    np.take(scratch, ABSENT, axis=0, mode="clip", out=out)
    for j, n in enumerate(N_PRESENT):
        np.take(w36, PRESENT[j, :n], axis=0, mode="clip", out=tmp[:n])
        np.maximum(out[:n], tmp[:n], out=out[:n])
    # Kismet-section boxes: V after scoring each (closed: -inf), (9, B), and as row 9 V after
    # a real Kismet in the Kismet box.
    after = np.empty((N_LOWER_BOXES + 1, B))
    np.copyto(after[:N_LOWER_BOXES], np.where(OPEN_L[l].T, VT[SUCC_L[l].T, u], -np.inf))
    after[REAL] = np.where(OPEN_L[l, KISMET_J], VT[SUCC_L_REAL[l], u], -np.inf)
    # Per signature the best 'sum + c' box (g) and the best fixed-points or scratched box
    # (h), and the value of the five-of-a-kind rolls.
    cand = np.take(after, CAND_BOX, axis=0, mode="clip")
    cand += CAND_ADD
    best = np.take(cand, PICKS, axis=0, mode="clip").max(axis=0)  # (2 sigs + 12, B)
    g, h = best[:N_SIGS], best[N_SIGS : 2 * N_SIGS]
    plain, part = tmp[:N_PLAIN], out[:N_PLAIN]
    np.take(g, SIG_PLAIN, axis=0, mode="clip", out=plain)
    plain += SUMS_PLAIN
    np.maximum(part, plain, out=part)
    np.take(h, SIG_PLAIN, axis=0, mode="clip", out=plain)
    np.maximum(part, plain, out=part)
    # Five of a kind (the last rows): a joker once the flag is set.
    five = np.where(L_FLAG[l].astype(bool), best[-6:], best[-12:-6])
    np.maximum(out[N_PLAIN:], five, out=out[N_PLAIN:])


def _expect(keeps: np.ndarray, tmp: np.ndarray) -> None:
    """keeps[:ROLL0] from keeps[ROLL0:] (space.expect_rolls, same sums in the same order)."""
    for size in range(4, -1, -1):
        lo, hi = SIZE_START[size], SIZE_START[size + 1]
        part, t = keeps[lo:hi], tmp[: hi - lo]
        np.take(keeps, ADD[lo:hi, 0], axis=0, mode="clip", out=part)  # rows of other sizes
        for f in range(1, 6):
            np.take(keeps, ADD[lo:hi, f], axis=0, mode="clip", out=t)
            part += t
        part *= 1.0 / 6.0


def _best_hold(keeps: np.ndarray, tmp: np.ndarray) -> np.ndarray:
    """In place: each keep's value becomes the best over its sub-keeps (space.best_hold; the
    smaller sizes are final before a size reads them, so no copy is needed). Returns the
    rolls' rows: the value of each roll when holding its best part."""
    for size in range(1, 6):
        lo = SIZE_START[size]
        for j in range(5):
            n = SUB_ROWS[size][j]
            if not n:
                break
            part, t = keeps[lo : lo + n], tmp[:n]
            np.take(keeps, SUB[lo : lo + n, j], axis=0, mode="clip", out=t)
            np.maximum(part, t, out=part)
    return keeps[ROLL0:]


def state_values(VT: np.ndarray, u: np.ndarray, l: np.ndarray) -> np.ndarray:
    """The expected rest-of-game score of a batch of states (turn.state_values, faster),
    from VT = V transposed."""
    buf = _buffers(len(u))
    keeps, tmp = buf.keeps, buf.tmp
    last_layer(VT, u, l, keeps[ROLL0:], tmp)
    _expect(keeps, tmp)  # before the 3rd roll
    _best_hold(keeps, tmp)  # the rolls' rows: the 2nd roll's values
    _expect(keeps, tmp)  # before the 2nd roll
    return P_FIRST @ _best_hold(keeps, tmp)


# --- Basic totals that are the same state ---------------------------------------------------


def _canonical_upper() -> np.ndarray:
    """For each upper index, the index of the smallest total that behaves the same: every sum
    the open Basic boxes can still add changes the bonus by the same amount from both."""
    canon = np.arange(N_UPPER)
    for mask in range(ALL_BASIC + 1):
        if mask == ALL_BASIC:
            continue
        sums = {0}
        for b in range(6):
            if not mask >> b & 1:
                sums = {s + (b + 1) * c for s in sums for c in range(6)}
        ordered = sorted(sums)
        seen: dict[tuple, int] = {}
        for total in range(CAP + 1):
            index = UPPER_INDEX[mask, total]
            if index < 0:
                continue
            key = tuple(rules.basic_bonus(total + s) - rules.basic_bonus(total) for s in ordered)
            canon[index] = seen.setdefault(key, index)
    return canon


CANON_U = _canonical_upper()


def _canonical_lower() -> np.ndarray:
    """For each lower index, the same part with the flag off when the flag can no longer
    matter: the joker only changes what the boxes in JOKER_BOXES pay, and none is open."""
    joker_mask = sum(1 << j for j in space.JOKER_BOXES)
    canon = np.arange(N_LOWER)
    moot = (L_FLAG == 1) & ((L_MASK & joker_mask) == joker_mask)
    canon[moot] -= 1  # index = mask * 2 + flag
    return canon


CANON_L = _canonical_lower()


def build(
    progress: Callable[[int, int], None] | None = None,
    levels: Iterable[int] = range(14, -1, -1),
    V: np.ndarray | None = None,
    threads: int | None = None,
    batch: int = BATCH,
) -> np.ndarray:
    """Solve the levels given (all by default) and return V, as table.build does.
    `progress(done, total)` is called from this thread as batches finish."""
    if V is None:
        V = np.zeros((N_UPPER, N_LOWER))
    # Work on V transposed, states in (lower, upper) order: a batch then shares its lower
    # parts, and what it reads of V (the states after scoring a Basic box: other upper
    # parts, the same lower part) lies close together in memory, not 8 KB apart.
    VT = np.ascontiguousarray(V.T)
    threads = threads or min(2, os.cpu_count() or 1)
    work = []
    for n in levels:
        u, l = level_states(n)
        solve = (CANON_U[u] == u) & (CANON_L[l] == l)
        order = np.lexsort((u[solve], l[solve]))
        work.append((u, l, u[solve][order], l[solve][order]))
    total = sum(len(us) for _, _, us, _ in work)
    done = 0
    with ThreadPoolExecutor(threads) as pool:
        for u_all, l_all, u_solve, l_solve in work:
            values = np.empty(len(u_solve))

            def run(
                start: int,
                u_solve: np.ndarray = u_solve,
                l_solve: np.ndarray = l_solve,
                values: np.ndarray = values,
            ) -> int:
                stop = start + batch
                values[start:stop] = state_values(VT, u_solve[start:stop], l_solve[start:stop])
                return stop - start if stop < len(u_solve) else len(u_solve) - start

            for count in pool.map(run, range(0, len(u_solve), batch)):
                done += count
                if progress:
                    progress(done, total)
            VT[l_solve, u_solve] = values
            VT[l_all, u_all] = VT[CANON_L[l_all], CANON_U[u_all]]
    V[...] = VT.T
    return V
