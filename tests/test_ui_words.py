"""The move log in words, from the notes real engines return (dice scripted)."""

from __future__ import annotations

from kismet_tui.rules import ScriptedRNG, new_game
from kismet_tui.screens.end import ranking
from kismet_tui.words.log import describe

NAMES = ["Ana", "Bo"]


def said(ruleset: str, notes: list[dict]) -> list[str]:
    return [line for line in (describe(ruleset, note, NAMES) for note in notes) if line]


def test_dice_log_tells_scores_and_the_second_kismet_penalty():
    # Roll-off 6 against 1: Ana starts. Ana: five 5s (Kismet). Bo: 1 2 3 4 6. Ana: five 5s again.
    rng = ScriptedRNG([6, 1, 5, 5, 5, 5, 5, 1, 2, 3, 4, 6, 5, 5, 5, 5, 5])
    game = new_game("dice", 2, b"words", rng=rng)
    lines = said("dice", game.apply(0, {"type": "roll", "hold": []}, 1))
    assert lines == ["Ana throws 5 5 5 5 5 (throw 1)."]
    lines = said("dice", game.apply(0, {"type": "score", "box": "kismet"}, 2))
    assert lines[0] == "Ana scores 75 in Kismet." and lines[-1] == "Bo's turn."
    game.apply(1, {"type": "roll", "hold": []}, 3)
    assert (
        said("dice", game.apply(1, {"type": "score", "box": "aces"}, 4))[0]
        == "Bo scores 1 in Aces."
    )
    game.apply(0, {"type": "roll", "hold": []}, 5)
    lines = said("dice", game.apply(0, {"type": "score", "box": "full_house"}, 6))
    assert lines[0] == "Ana scores 40 in Full House as a joker."
    assert "Second Kismet for Ana: the others lose a turn. Bo gets 0 in Deuces." in lines
    assert "Ana throws again at once." in lines


def test_knock_judgements_in_words():
    note = {
        "type": "knocked",
        "seat": 1,
        "roll": 3,
        "case": "roller_holds",
        "judgement": "wrong",
        "laid": None,
        "turned_up": {"seat": 1, "card": 9},
    }
    assert said("knock", [note]) == [
        "Bo knocks: wrong, the thrower holds a match and did not pass. Bo takes back their 9."
    ]
    note = {
        "type": "knocked",
        "seat": 0,
        "roll": 4,
        "case": "overlooked",
        "judgement": "good",
        "laid": 8,
        "turned_up": None,
    }
    assert said("knock", [note]) == [
        "Ana knocks: right, the thrower had missed a match. Ana lays 8."
    ]
    assert said(
        "knock",
        [{"type": "revealed", "seat": 1, "count": 0}, {"type": "revealed", "seat": 0, "count": 1}],
    ) == ["Bo lays nothing in advance.", "Ana lays 1 card in advance."]


def test_ranking_shares_places_and_knock_counts_low():
    assert ranking("dice", {"scores": [120, 200, 120]}) == [(1, 1, 200), (2, 0, 120), (2, 2, 120)]
    # Knock's scores are its minus points negated (higher is better there too).
    assert ranking("knock", {"scores": [-7, 0, -3], "minus_points": [7, 0, 3]}) == [
        (1, 1, 0),
        (2, 2, -3),
        (3, 0, -7),
    ]


def test_dice_log_names_the_faces_kept():
    # Roll-off: Ana 6, Bo 1. Ana throws 6 6 2 3 4, keeps the two 6s, throws 6 1 5 again.
    rng = ScriptedRNG([6, 1, 6, 6, 2, 3, 4, 6, 1, 5])
    game = new_game("dice", 2, b"words", rng=rng)
    game.apply(0, {"type": "roll", "hold": []}, 1)
    lines = said("dice", game.apply(0, {"type": "roll", "hold": [0, 1]}, 2))
    assert lines == ["Ana throws 6 6 6 1 5 (throw 2, kept 6 6)."]
