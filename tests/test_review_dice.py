"""The dice review (kismet_tui/review/dice.py): every decision of a finished game graded by
the optimal table (tests/conftest.py optimal_cache, built once per session)."""

from __future__ import annotations

import pytest

from kismet_tui.bots import dice_levels
from kismet_tui.review.dice import Choice, NotADiceGame, optimal_table, review_dice_game
from kismet_tui.rules import apply_event, game_from_header
from tests.review_util import play_dice


@pytest.fixture
def V(optimal_cache, monkeypatch):
    """The optimal table as the hard bot and the review both load it from the cache."""
    path, _ = optimal_cache
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(path.parent))
    found = optimal_table()
    assert found is not None
    monkeypatch.setattr(dice_levels, "_optimal", found)
    return found


def test_the_hard_bot_gives_up_nothing_at_any_decision(V):
    header, events = play_dice(["hard", "easy"], seed=7, names=["Hal", "Eve"])
    review = review_dice_game(header, events, V)
    hard, easy = review.seats
    assert review.finished and hard.name == "Hal" and hard.score is not None
    # Each turn ends with a box scored: one decision per box but the ones another seat's
    # second Kismet filled with a 0 [D4], and some holds.
    assert sum(d.chosen.kind == "score" for d in hard.decisions) == 15 - zeros_given(
        header, events, 0
    )
    assert any(d.chosen.kind == "hold" for d in hard.decisions)
    assert all(d.cost == 0.0 and d.chosen == d.best for d in hard.decisions)
    assert hard.total_cost == 0.0 and hard.costliest() == []
    # The greedy bot is not the perfect player: it gives points up, never gains any.
    assert easy.total_cost > 1.0
    assert all(d.cost >= 0.0 for d in easy.decisions)
    assert [d.index for d in review.decisions()] == list(range(len(review.decisions())))


def zeros_given(header: dict, events: list[dict], seat: int) -> int:
    game = game_from_header(header)
    notes = [note for event in events for note in apply_event(game, event)]
    return sum(
        victim[0] == seat
        for note in notes
        if note["type"] == "penalty"
        for victim in note["victims"]
    )


def solo(*moves: tuple[dict, list[int] | None]) -> tuple[dict, list[dict]]:
    """A solo game's log: the dice each throw shows are chosen (revealed chance, as a version 2
    log carries it)."""
    header = {"ruleset": "dice", "seats": ["Ana"], "options": {}, "t0": 0, "chance": []}
    events = []
    for seq, (action, chance) in enumerate(moves, start=1):
        event = {"seq": seq, "t": seq * 1000, "seat": 0, "action": action}
        if chance is not None:
            event["chance"] = chance
        events.append(event)
    return header, events


def test_a_bad_decision_costs_points_and_names_the_best_choice(V):
    header, events = solo(
        ({"type": "roll"}, [6, 6, 6, 6, 6]),
        ({"type": "score", "box": "aces"}, None),  # five sixes scratched in Aces
        ({"type": "roll"}, [1, 2, 6, 6, 6]),
        ({"type": "roll", "hold": [1, 0]}, [3, 4, 5]),  # the 1 and 2 kept, the sixes thrown
    )
    review = review_dice_game(header, events, V)
    assert not review.finished
    scratch, hold = review.seats[0].decisions
    assert (scratch.turn, scratch.throw, scratch.dice) == (1, 1, (6, 6, 6, 6, 6))
    assert scratch.chosen == Choice("score", box="aces", points=0)
    assert scratch.best == Choice("score", box="kismet", points=80)
    assert scratch.cost > 50 and scratch.cost == pytest.approx(
        scratch.expected_best - scratch.expected_chosen
    )
    assert scratch.card["aces"] is None  # the card as it stood before the choice
    assert (hold.turn, hold.throw, hold.dice) == (2, 1, (1, 2, 6, 6, 6))
    assert hold.chosen == Choice("hold", hold=(1, 2)) and hold.best == Choice(
        "hold", hold=(6, 6, 6)
    )
    assert hold.card["aces"] == 0 and hold.cost > 5
    assert review.seats[0].costliest() == [scratch, hold]
    assert scratch.line() == f"Turn 1: scored Aces 0; best was score Kismet 80, -{scratch.cost:.1f}"
    assert (
        hold.line()
        == f"Turn 2: held 1 2, threw again; best was hold 6 6 6 and throw again, -{hold.cost:.1f}"
    )


def test_a_turn_the_clock_played_is_graded_as_the_clocks(V):
    header, events = solo(
        ({"type": "roll"}, [2, 3, 4, 5, 1]),
        ({"type": "roll", "hold": [0, 1, 2, 3]}, [6]),
    )
    header["options"] = {"turn_limit_ms": 1000}
    events.append({"seq": 3, "t": 10_000, "seat": -1, "action": {"type": "timeout"}})
    decisions = review_dice_game(header, events, V).seats[0].decisions
    assert [d.by_clock for d in decisions] == [False, True]
    assert decisions[1].throw == 2 and decisions[1].chosen.kind == "score"
    assert "(the clock played it)" in decisions[1].line()


def test_only_dice_games_are_reviewed(V):
    with pytest.raises(NotADiceGame, match="only dice games"):
        review_dice_game({"ruleset": "race", "seats": ["A", "B"]}, [], V)
