"""Colour by more than colour: each die has its colour written on it (Unicode and ASCII,
held or not), and a colour box's preview names the colour the dice fit, in the scorecard
(the colour's letter in place of the dot) and on the turn line ("(green)").
"""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.rules import ScriptedRNG, new_game
from kismet_tui.screens.dice import render_scorecard
from kismet_tui.widgets.art import die_lines
from kismet_tui.widgets.glyphs import use_ascii
from tests.scripted import ScriptedClient, table_for
from tests.uiutil import wait_for

COLOURS = {1: "black", 2: "red", 3: "green", 4: "green", 5: "red", 6: "black"}


@pytest.fixture(params=[False, True], ids=["unicode", "ascii"])
def drawing(request):
    use_ascii(request.param)
    yield request.param
    use_ascii(False)


@pytest.mark.parametrize("held", [False, True], ids=["loose", "held"])
@pytest.mark.parametrize("face", range(1, 7))
def test_each_die_says_its_colour(drawing, face, held):
    lines = [line.plain for line in die_lines(face, held=held)]
    assert len(lines) == 5 and all(len(line) == 7 for line in lines)  # the same size as before
    assert COLOURS[face] in lines[-1]
    others = set(COLOURS.values()) - {COLOURS[face]}
    assert not any(word in line for line in lines for word in others)


def test_dice_without_colours_say_none(drawing):
    """The race and knock dice have no colours that count: nothing is written on them."""
    for face in range(1, 7):
        assert not any(
            word in line.plain
            for line in die_lines(face, coloured=False)
            for word in set(COLOURS.values())
        )


def seat0_threw(dice: list[int]):
    """A two-seat game where seat 0 (who starts) has thrown `dice` once."""
    game = new_game("dice", 2, b"colour", rng=ScriptedRNG([6, 1] + dice))
    game.apply(0, {"type": "roll"}, 1000)
    assert game.view(0)["dice"] == dice
    return game


def preview_cells(dice: list[int]) -> dict[str, str]:
    """The text in seat 0's column of each box row of the scorecard."""
    card = render_scorecard(seat0_threw(dice).view(0), ["Ana", "Bo"], 0, None).plain.split("\n")
    rows = {
        "2 Pair Same C": "two_pair",
        "Flush": "flush",
        "Full House S C": "fhsc",
        "Full House": "fh",
    }
    cells = {}
    for line in card:
        label, ana = line[:14].rstrip(), line[14:19].strip()
        if label in rows:
            cells[rows[label]] = ana
    return cells


@pytest.mark.parametrize(
    "dice, expected",
    [
        ([3, 3, 4, 4, 3], {"two_pair": "g17", "flush": "g35", "fhsc": "g37", "fh": "·32"}),
        ([2, 2, 5, 5, 1], {"two_pair": "r15", "flush": "·0", "fhsc": "·0", "fh": "·0"}),
        ([6, 6, 1, 1, 6], {"two_pair": "b20", "flush": "b35", "fhsc": "b40", "fh": "·35"}),
        ([3, 3, 5, 5, 1], {"two_pair": "·0", "flush": "·0", "fhsc": "·0", "fh": "·0"}),
    ],
)
def test_colour_boxes_preview_names_the_colour(dice, expected):
    assert preview_cells(dice) == expected


@pytest.mark.ui
@pytest.mark.timeout(60)
async def test_turn_line_names_the_colour_the_dice_fit():
    game = seat0_threw([3, 3, 4, 4, 3])  # best box: Full House Same Color, 37, green
    client = ScriptedClient(None, [], table_for("dice", ["Ana", "Bo"]))
    client.game, client.seat = game, 0
    client.header = {"ruleset": "dice", "seats": ["Ana", "Bo"]}
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "DiceScreen", what="the dice screen"
        )
        await pilot.pause()
        turn = app.screen.query_one("#turn").text.plain
        assert "enter: 37 in Full House Same Color (green)" in turn
        await pilot.press("down")  # the next open box: Four of a Kind, no colour
        turn = app.screen.query_one("#turn").text.plain
        assert "(green)" not in turn and "4 of a Kind" in turn
