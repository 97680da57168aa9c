"""Golden text of the screens' pure render functions, from scripted positions at 2, 4 and 8
seats: the scorecard and dice (dice), the circle, clock and players (race), the hand and the
other players (knock), and the end-of-game ranking. No network and no app: each position is
a real engine driven by scripted dice, and each function's plain text is compared with
`tests/golden/<case>.txt`.

After a deliberate change of a screen's look, rewrite the files and read the diff:

    GOLDEN_UPDATE=1 pytest tests/test_golden_render.py
"""

import os
import pathlib

import pytest

from kismet_tui.rules import HOST, ScriptedRNG, new_game
from kismet_tui.rules import knock as knock_rules
from kismet_tui.screens.dice import render_dice, render_scorecard, widths
from kismet_tui.screens.end import render_result
from kismet_tui.screens.knock import render_hand, render_others
from kismet_tui.screens.race import render_circle, render_clock, render_players
from tests.uiutil import race_position

GOLDEN = pathlib.Path(__file__).parent / "golden"
NAMES = ["Ana", "Bo", "Chidi", "Dagmar", "Eun-ji Kwon", "Femi", "Gunnhild Ødegård", "Hiroshi"]
SEATS = [2, 4, 8]


def check_golden(case: str, text) -> None:
    plain = "\n".join(line.rstrip() for line in text.plain.split("\n")) + "\n"
    path = GOLDEN / f"{case}.txt"
    if os.environ.get("GOLDEN_UPDATE") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(plain, encoding="utf-8")
    assert path.exists(), f"no golden text {path.name}: run with GOLDEN_UPDATE=1"
    assert plain == path.read_text(encoding="utf-8"), f"{case} differs from {path.name}"


# ---- dice --------------------------------------------------------------------------------

# (dice of the turn's one roll, box scored), seat after seat from seat 0.
DICE_TURNS = [
    ([1, 1, 1, 4, 6], "aces"),
    ([6, 6, 6, 6, 2], "four_of_a_kind"),
    ([2, 3, 4, 5, 6], "straight"),
    ([5, 5, 2, 2, 3], "fives"),
    ([3, 3, 4, 4, 1], "two_pair_same_color"),
    ([4, 4, 4, 2, 2], "full_house"),
    ([1, 2, 3, 5, 6], "yarborough"),
    ([6, 6, 5, 5, 6], "sixes"),
]


def dice_position(seats: int):
    """Every seat has scored one turn; seat 0 has thrown 3 3 3 5 5 and not scored yet."""
    turns = DICE_TURNS[:seats]
    script = [6] + [1] * (seats - 1)  # the roll-off: seat 0 starts
    for dice, _ in turns:
        script += dice
    script += [3, 3, 3, 5, 5]
    game = new_game("dice", seats, b"golden", rng=ScriptedRNG(script))
    t = 0
    for seat, (_, box) in enumerate(turns):
        t += 1000
        game.apply(seat, {"type": "roll"}, t)
        game.apply(seat, {"type": "score", "box": box}, t + 500)
    game.apply(0, {"type": "roll"}, t + 1000)
    return game


@pytest.mark.parametrize("seats", SEATS)
def test_dice_scorecard_and_dice(seats):
    view = dice_position(seats).view(0)
    check_golden(f"dice_scorecard_{seats}", render_scorecard(view, NAMES[:seats], 0, "full_house"))
    check_golden(f"dice_dice_{seats}", render_dice(view, {0, 1, 2}, show_keys=True))


# ---- race --------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", SEATS)
def test_race_countdown_grabs_and_reveal(seats):
    game = race_position(seats)
    names = NAMES[:seats]
    check_golden(f"race_clock_countdown_{seats}", render_clock(game.view(0), names, 0, 1200))
    game.apply(HOST, {"type": "timeout"}, 3000)  # the throw: targets 5, 7 and 8
    game.apply(1, {"type": "grab", "card": 5}, 3400)  # the 7
    if seats > 2:
        game.apply(2, {"type": "grab", "card": 0}, 3500)  # the 2: wrong
        game.apply(seats - 1, {"type": "pass"}, 3600)
    view = game.view(0)
    check_golden(f"race_circle_{seats}", render_circle(view, names))
    check_golden(f"race_players_{seats}", render_players(view, names, 0))
    check_golden(f"race_clock_grabbing_{seats}", render_clock(view, names, 0, 4250))
    check_golden(f"race_clock_grabbed_{seats}", render_clock(game.view(1), names, 1, 4250))
    game.apply(0, {"type": "grab", "card": 3}, 4300)  # the 5
    if game.phase == "grabbing":  # 8 seats: the others never grab, and time runs out
        game.apply(HOST, {"type": "timeout"}, 13_000)
    assert game.phase == "pause"
    check_golden(
        f"race_clock_reveal_{seats}", render_clock(game.view(0), names, 0, game.deadline - 1500)
    )


# ---- knock -------------------------------------------------------------------------------


def knock_position(seats: int):
    """Even seats pre-laid their 12, odd seats nothing. The first thrower threw 1 2 3
    (targets 3, 4 and 5) and laid the 5; the next seat knocked, wrongly, since the thrower
    still holds the 3 and the 4."""
    game = new_game("knock", seats, b"golden", rng=ScriptedRNG([1, 2, 3]), start_ms=0)
    choices = {seat: [12] if seat % 2 == 0 else [] for seat in range(seats)}
    for seat, cards in choices.items():
        commit = knock_rules.prelay_commitment(cards, knock_rules.PUBLIC_SALT)
        game.apply(seat, {"type": "prelay", "commit": commit}, 100 + seat)
    for seat, cards in choices.items():
        game.apply(
            seat, {"type": "reveal", "cards": cards, "salt": knock_rules.PUBLIC_SALT}, 200 + seat
        )
    roller = game.turn
    game.apply(roller, {"type": "roll"}, 1000)
    game.apply(roller, {"type": "lay", "card": 5}, 1500)
    game.apply((roller + 1) % seats, {"type": "knock"}, 1600)
    return game


@pytest.mark.parametrize("seats", SEATS)
def test_knock_hand_and_others(seats):
    game = knock_position(seats)
    names = NAMES[:seats]
    check_golden(f"knock_others_{seats}", render_others(game.view(0), names, 0))
    check_golden(f"knock_hand_{seats}", render_hand(game.view(0), 0, []))


def test_knock_hand_while_choosing_the_prelay():
    game = new_game("knock", 2, b"golden", rng=ScriptedRNG(), start_ms=0)
    check_golden("knock_hand_prelay", render_hand(game.view(0), 0, [12, 2]))


# ---- the end -----------------------------------------------------------------------------


@pytest.mark.parametrize("seats", SEATS)
def test_end_ranking(seats):
    names = NAMES[:seats]
    scores = [240, 310, 310, 198, 275, 301, 150, 222][:seats]
    best = max(scores)
    dice = {"scores": scores, "winners": [s for s in range(seats) if scores[s] == best]}
    check_golden(f"end_dice_{seats}", render_result("dice", dice, names, 1))
    minus = [4, 0, 17, 9, 0, 12, 33, 6][:seats]
    low = min(minus)
    knock = {
        "scores": [-m for m in minus],
        "minus_points": minus,
        "winners": [s for s in range(seats) if minus[s] == low],
    }
    check_golden(f"end_knock_{seats}", render_result("knock", knock, names, 0))


@pytest.mark.parametrize("room", [80, 120])
@pytest.mark.parametrize("seats", range(1, 9))
def test_every_scorecard_row_has_a_name_of_its_own(seats, room):
    """However narrow the labels get (eight seats at 80 columns), no two boxes read alike:
    "Full House" and "Full House Same Colour" cut to the same word would leave the player
    guessing which row is which."""
    game = new_game("dice", seats, b"labels")
    text = render_scorecard(game.view(0), NAMES[:seats], 0, None, room)
    lines = text.plain.split("\n")[1:]  # below the names
    label, _, _ = widths(seats, NAMES[:seats], room)
    labels = [line[:label].strip() for line in lines]
    assert len(labels) == len(set(labels)), f"rows that read alike: {labels}"
