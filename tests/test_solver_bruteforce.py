"""The vectorised solver against plain exhaustive expectation on end-of-game states.

The brute force below shares no code with kismet_tui.solver: it walks every roll of every
hold with itertools and the engine's own score(), one state at a time. States with one or
two open boxes are solved both ways and must agree.
"""

from __future__ import annotations

from functools import cache
from itertools import product

import pytest

from kismet_tui.rules import dice as rules
from kismet_tui.solver import table
from kismet_tui.solver.states import state_of

BASIC_FACE = {box: face for face, box in enumerate(rules.BASIC_BOXES, start=1)}


@cache
def outcomes(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    counts: dict[tuple[int, ...], int] = {}
    for faces in product(range(1, 7), repeat=n):
        key = tuple(sorted(faces))
        counts[key] = counts.get(key, 0) + 1
    return tuple((key, c / 6**n) for key, c in counts.items())


def holds(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    found = {()}
    for face in roll:
        found |= {tuple(sorted(k + (face,))) for k in found}
    return found


@cache
def rest_of_game(open_boxes: frozenset, basic_total: int, real_kismet: bool) -> float:
    """Expected points still to come, bonus included (paid at the end on the final total)."""
    if not open_boxes:
        return float(rules.basic_bonus(basic_total))

    @cache
    def score_now(roll):
        joker = real_kismet and len(set(roll)) == 1
        best = float("-inf")
        for box in open_boxes:
            points = rules.score(box, roll, joker=joker and box not in BASIC_FACE)
            total = basic_total + points if box in BASIC_FACE else basic_total
            flag = real_kismet or (box == "kismet" and points > 0)
            best = max(best, points + rest_of_game(open_boxes - {box}, total, flag))
        return best

    @cache
    def after_roll(roll, rolls_left):
        if rolls_left == 0:
            return score_now(roll)
        return max(keep_value(k, rolls_left) for k in holds(roll))

    @cache
    def keep_value(keep, rolls_left):
        if len(keep) == 5:
            return after_roll(keep, rolls_left - 1)
        return sum(
            p * after_roll(tuple(sorted(keep + out)), rolls_left - 1)
            for out, p in outcomes(5 - len(keep))
        )

    return keep_value((), 3)


def solver_value(V, open_boxes, basic_total, real_kismet):
    filled = set(rules.BOXES) - set(open_boxes)
    u, l = state_of(filled, basic_total, real_kismet)
    # The solver counts bonus tiers as they are reached; the brute force pays at the end.
    return V[u, l] + rules.basic_bonus(basic_total)


@pytest.fixture(scope="module")
def end_table():
    return table.build(levels=[14, 13])


CASES = [
    ({"kismet"}, 0, False),
    ({"full_house"}, 40, True),  # joker five of a kind counts as a full house
    ({"full_house_same_color"}, 10, False),
    ({"sixes"}, 60, False),  # 63 is in reach: the bonus tier counts
    ({"straight"}, 70, True),
    ({"sixes", "fours"}, 50, False),  # two Basic boxes racing for tiers 63 / 71
    ({"kismet", "full_house"}, 0, False),  # a Kismet now makes a later joker possible
    ({"aces", "full_house_same_color"}, 62, True),
    ({"flush", "yarborough"}, 0, True),
]


@pytest.mark.parametrize("open_boxes,basic_total,real_kismet", CASES)
def test_solver_matches_exhaustive_expectation(end_table, open_boxes, basic_total, real_kismet):
    if real_kismet and "kismet" in open_boxes:
        pytest.skip("a real Kismet needs the Kismet box filled")
    exact = rest_of_game(frozenset(open_boxes), basic_total, real_kismet)
    assert solver_value(end_table, open_boxes, basic_total, real_kismet) == pytest.approx(
        exact, abs=1e-9
    )


def test_joker_flag_is_worth_something(end_table):
    # Same card, flag on or off: with the flag, five of a kind also fills Full House.
    with_flag = rest_of_game(frozenset({"full_house"}), 0, True)
    without = rest_of_game(frozenset({"full_house"}), 0, False)
    assert with_flag > without
    assert solver_value(end_table, {"full_house"}, 0, True) == pytest.approx(with_flag, abs=1e-9)


def test_policy_played_out_scores_what_the_table_expects(end_table):
    # The vectorised simulator plays the table's policy; its mean must match the expectation.
    import numpy as np

    from kismet_tui.solver import simulate

    u, l = state_of(set(rules.BOXES) - {"kismet", "full_house"}, 0, False)
    points = simulate.play(end_table, 8000, seed=3, upper=u, lower=l)
    half_width = 4 * points.std() / np.sqrt(len(points))
    assert abs(points.mean() - end_table[u, l]) < half_width


def test_cache_round_trip_and_versioned_name(tmp_path, monkeypatch, end_table, optimal_cache):
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path))
    path = table.cache_path()
    assert path.parent == tmp_path and f"-v{table.FORMAT_VERSION}-" in path.name
    assert table.load() is None  # nothing built yet
    table.save(end_table, info={"build_seconds": 1.0})
    assert table.load() is None  # the last levels alone are no whole table: not used
    whole = optimal_cache[1]
    table.save(whole, info={"build_seconds": 1.0})
    loaded = table.load()
    assert loaded is not None and np_allclose(loaded, whole)
    assert table.build_info() == {"build_seconds": 1.0}
    path.write_bytes(b"not a table")
    assert table.load() is None  # a damaged file is ignored, not trusted


def np_allclose(a, b):
    import numpy as np

    return np.allclose(a, b, rtol=1e-6, atol=1e-4)
