"""The easy / medium / hard bots of every game: whole games, legal moves only, determinism,
and the levels really differ in strength. Driven in-process through the engines (arena.py);
the TCP test is in test_bot_levels_net.py."""

from __future__ import annotations

import logging
import random
import statistics

import pytest

from kismet_tui.bots import arena, dice_levels
from kismet_tui.bots.advisor import advise
from kismet_tui.bots.dice_levels import DicePolicy, greedy_choice
from kismet_tui.bots.knock_levels import KNOCK_LEVELS, choose_prelay, target_chance
from kismet_tui.bots.levels import LEVELS, level_factory
from kismet_tui.rules import GAMES, new_game, replay
from kismet_tui.rules.knock import prelay_problem


@pytest.fixture
def no_optimal_table(monkeypatch, tmp_path):
    """As on a fresh machine: no optimal table in the cache."""
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path))
    monkeypatch.setattr(dice_levels, "_optimal", None)
    monkeypatch.setattr(dice_levels, "_optimal_missing_warned", False)


def players(ruleset, levels, seed):
    return [level_factory(level)(ruleset, seat, seed + seat) for seat, level in enumerate(levels)]


@pytest.mark.parametrize("ruleset", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_level_finishes_whole_games_with_legal_moves_only(no_optimal_table, ruleset, seed):
    levels = list(LEVELS) if ruleset != "dice" or seed == 1 else ["hard", "easy"]
    game, log, refused = arena.play_local(ruleset, players(ruleset, levels, seed), seed)
    assert game.finished
    assert refused == []
    # The log is a legal game that anyone can replay to the same state.
    header = {"ruleset": ruleset, "seats": len(levels), "seed": seed, "options": {}, "t0": 0}
    assert replay(header, log).digest() == game.digest()
    # Every seat took part.
    assert {e["seat"] for e in log if e["seat"] >= 0} == set(range(len(levels)))


@pytest.mark.parametrize("ruleset", GAMES)
def test_bots_are_deterministic_per_seed(no_optimal_table, ruleset):
    first = arena.play_local(ruleset, players(ruleset, ["easy", "hard"], 7), 7)[1]
    again = arena.play_local(ruleset, players(ruleset, ["easy", "hard"], 7), 7)[1]
    assert first == again


def test_knock_rounds_with_several_prelays(no_optimal_table):
    game, log, refused = arena.play_local(
        "knock", players("knock", list(LEVELS), 3), 3, options={"rounds": 3}
    )
    assert game.finished and refused == []
    assert len(game.result()["round_scores"]) == 3


def solo_mean(level, games, seed0=200):
    scores = []
    for g in range(games):
        game, _, refused = arena.play_local("dice", [DicePolicy(level, 0, seed0 + g)], seed0 + g)
        assert refused == []
        scores.append(game.result()["scores"][0])
    return statistics.mean(scores)


def test_dice_levels_differ_in_strength(no_optimal_table):
    # Means of 30 solo games on the same seeds (sd of a game about 55): over 300 games each,
    # medium beats easy by about 35 points (benchmarks/dice_solver.py).
    assert solo_mean("medium", 30) > solo_mean("easy", 30) + 15


def test_hard_without_the_table_plays_on_and_says_so(no_optimal_table, caplog):
    policy = DicePolicy("hard", 0, 1)
    game = new_game("dice", 1, 1)
    with caplog.at_level(logging.WARNING):
        delay, action = policy.decide(game, 0, 0)
    assert action == {"type": "roll", "hold": []} and delay > 0
    assert policy.exact is False
    assert "not built" in caplog.text


def test_greedy_holds_the_commonest_face_and_scores_made_patterns():
    card = {box: None for box in new_game("dice", 1, 1).cards[0]}
    assert greedy_choice(card, [2, 5, 5, 3, 5], 1, False) == {"type": "roll", "hold": [1, 2, 4]}
    assert greedy_choice(card, [1, 2, 3, 4, 5], 1, False) == {"type": "score", "box": "straight"}
    assert greedy_choice(card, [1, 2, 3, 4, 6], 3, False) == {"type": "score", "box": "yarborough"}


def test_race_hard_outgrabs_easy():
    hard_total = easy_total = 0
    for seed in range(6):
        game, _, _ = arena.play_local("race", players("race", ["easy", "hard"], seed), seed)
        easy, hard = game.result()["scores"]
        hard_total, easy_total = hard_total + hard, easy_total + easy
    # Easy still gets the cards hard leaves over (several matches per roll), but fewer.
    assert hard_total > 1.5 * easy_total


def test_knock_prelays_are_legal_and_hard_takes_the_rarest_card():
    chips = [6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6]
    for level in KNOCK_LEVELS:
        for seed in range(5):
            choice = choose_prelay(level, chips, random.Random(seed))
            assert prelay_problem(choice, chips) is None
    assert choose_prelay("hard", chips, random.Random(0)) in ([2], [12])
    odds = target_chance()
    assert odds[7] > odds[6] > odds[2] and odds[2] == odds[12]


def test_advisor_dice_hints_are_legal_and_sorted(no_optimal_table):
    game = new_game("dice", 2, 5)
    seat = game.current
    assert advise(game, 1 - seat) == []
    hints = advise(game, seat)
    assert [h["action"] for h in hints] == [{"type": "roll", "hold": []}]
    game.apply(seat, {"type": "roll", "hold": []}, 10)
    hints = advise(game, seat)
    legal = game.legal_actions(seat)
    assert all(h["action"] in legal for h in hints)
    assert [h["expected"] for h in hints] == sorted((h["expected"] for h in hints), reverse=True)
    assert all(h["exact"] is False for h in hints)
    # One hint per distinct hold (the positions of equal faces do not matter) and per open box.
    holds = {
        tuple(sorted(game.dice[i] for i in h["action"]["hold"]))
        for h in hints
        if h["action"]["type"] == "roll"
    }
    assert len(holds) == sum(1 for h in hints if h["action"]["type"] == "roll")
    assert sum(1 for h in hints if h["action"]["type"] == "score") == 15


def test_advisor_card_games_point_at_good_moves():
    for ruleset in ("race", "knock"):
        game, log, _ = arena.play_local(ruleset, players(ruleset, ["hard", "hard"], 4), 4)
        replayed = new_game(ruleset, 2, 4)
        hinted = 0
        for event in log:
            # A knock-game roll is hinted during the knock window too: it is legal once the
            # window has passed [D15], which is when the hint means it.
            when = max(replayed.now, getattr(replayed, "roll_from", None) or 0)
            for seat in range(2):
                for hint in advise(replayed, seat):
                    assert hint["action"] in replayed.legal_actions(seat, when)
                    hinted += 1
            replayed.apply(event["seat"], event["action"], event["t"])
        assert hinted > 0


def test_greedy_scores_five_of_a_kind_rather_than_holding_all_five():
    card = {box: None for box in new_game("dice", 1, 1).cards[0]}
    card.update(kismet=0, four_of_a_kind=30, full_house=0, full_house_same_color=0, flush=0)
    assert greedy_choice(card, [2, 2, 2, 2, 2], 1, False)["type"] == "score"
