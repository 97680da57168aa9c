"""Every action of the three game screens by mouse (issue 32): Pilot clicks on a die, a box,
a card, a button, each doing what its key does, and a click on something the engine would
refuse doing nothing but say why.

The app is seat 0 of a RefereeClient (tests/test_ui_footer_walk.py): a game replica from a
seeded playout, its clock frozen, and every send judged by a copy of the engine the host
applies, so "accepted" means the host would take it. Where a thing is on the screen is found
from the text the screen drew (a button's label, a box's name), never from fixed cells.
"""

from __future__ import annotations

import copy

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.rules import IllegalAction
from kismet_tui.screens.dice import ALL_HELD, SHORT, load_advisor
from tests.test_ui_dice import wait_for
from tests.test_ui_footer_walk import RefereeClient

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]

TWO = ["Ana", "Bot 1 (medium)"]


async def open_game(pilot, app, screen: str):
    await wait_for(pilot, lambda: type(app.screen).__name__ == screen and app.screen.is_mounted,
                   what=f"the {screen}")
    await pilot.pause()
    return app.screen


def running(client: RefereeClient) -> tuple[KismetApp, list[str]]:
    app = KismetApp(client, address="this computer")
    refusals: list[str] = []
    # (as the app says them: seat numbers as names)
    app.show_refusal = lambda words: refusals.append(app.seat_words(words))  # type: ignore[method-assign]
    return app, refusals


def where(text, word: str, line: int | None = None) -> tuple[int, int]:
    """(x, y) of the first cell of `word` in a drawn Text (on `line` if given)."""
    lines = text.plain.split("\n")
    for y, row in enumerate(lines):
        if (line is None or y == line) and word in row:
            return row.index(word), y
    raise AssertionError(f"{word!r} is not drawn: {lines}")


def accepted(client: RefereeClient) -> list[dict]:
    return [action for action, reason in client.sent if reason is None]


# ---- dice -----------------------------------------------------------------------------------
def dice_at(until) -> RefereeClient:
    return RefereeClient.at("dice", TWO, until=until)


def mine_thrown_once(game) -> bool:
    view = game.view(0)
    return view["turn"] >= 2 and view["current"] == 0 and view["rolls_used"] == 1


def mine_not_thrown(game) -> bool:
    view = game.view(0)
    return view["turn"] >= 2 and view["current"] == 0 and view["rolls_used"] == 0


def theirs(game) -> bool:
    view = game.view(0)
    return view["turn"] >= 2 and view["current"] == 1 and view["rolls_used"] == 1


def die_offset(pos: int) -> tuple[int, int]:
    return pos * 8 + 3, 2  # (7 cells a die, a space between, at 80x24 for two players)


async def test_a_click_on_a_die_holds_it_and_another_releases_it_then_throw_keeps_it():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        await pilot.click("#dice", offset=die_offset(1))
        await wait_for(pilot, lambda: screen.held == {1}, what="die 2 held by a click")
        await pilot.click("#dice", offset=(3 * 8 + 3, 5))   # die 4's label line
        await wait_for(pilot, lambda: screen.held == {1, 3}, what="die 4 held by a click on its label")
        await pilot.click("#dice", offset=die_offset(3))
        await wait_for(pilot, lambda: screen.held == {1}, what="die 4 released by a click")
        x, y = where(screen.drawn["buttons"], "Throw")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: client.sent, what="the throw sent")
        assert accepted(client) == [{"type": "roll", "hold": [1]}] and not refusals


async def test_a_click_on_a_box_chooses_it_and_a_second_scores_it():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        open_boxes = [box for box, entry in screen.view()["preview"].items() if entry["legal"]]
        box = next(b for b in open_boxes if b != screen.cursor)
        card = screen.drawn["scorecard"]
        x, y = where(card, SHORT[box])
        await pilot.click("#scorecard", offset=(x + 1, y))
        await wait_for(pilot, lambda: screen.cursor == box, what="the box chosen by a click")
        assert not client.sent, "a first click only chooses the box"
        await pilot.click("#scorecard", offset=(x + 1, y))
        await wait_for(pilot, lambda: client.sent, what="the score sent")
        assert accepted(client) == [{"type": "score", "box": box}] and not refusals


async def test_the_score_button_scores_the_chosen_box():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        chosen = screen.cursor
        x, y = where(screen.drawn["buttons"], "Score")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: client.sent, what="the score sent")
        assert accepted(client) == [{"type": "score", "box": chosen}] and not refusals


async def test_throw_by_its_button_and_a_die_before_the_first_throw_says_why():
    client = dice_at(mine_not_thrown)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        assert "Score" not in screen.drawn["buttons"].plain, "no Score button before a throw"
        await pilot.click("#dice", offset=die_offset(0))
        await wait_for(pilot, lambda: refusals, what="a word on the die clicked too early")
        assert refusals == ["There is nothing to hold before the first roll."]
        assert screen.held == set() and not client.sent
        x, y = where(screen.drawn["buttons"], "Throw")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: client.sent, what="the throw sent")
        assert accepted(client) == [{"type": "roll", "hold": []}]


async def test_the_hint_is_a_button():
    load_advisor()
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        await wait_for(pilot, lambda: "Hint" in screen.drawn["buttons"].plain, what="the Hint button")
        x, y = where(screen.drawn["buttons"], "Hint")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: screen.hint_key is not None, what="the hint shown", seconds=60)
        assert any(line.plain.startswith("Hint") for line in screen.movelog().said)
        assert not client.sent and not refusals, "a hint only marks: the player decides"


async def test_clicks_on_anothers_turn_and_on_a_filled_box_say_the_engines_words():
    client = dice_at(theirs)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        assert screen.drawn["buttons"].plain.strip() == "", "no buttons on another's turn"
        await pilot.click("#dice", offset=die_offset(2))
        await wait_for(pilot, lambda: refusals, what="a word on the die")
        assert refusals == ["Not your turn: Bot 1 (medium) is rolling."]
        assert screen.held == set() and not client.sent


async def test_a_click_on_a_filled_box_says_why_and_keeps_the_choice():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        filled = next(box for box, value in screen.view()["cards"][0].items() if value is not None)
        chosen = screen.cursor
        x, y = where(screen.drawn["scorecard"], SHORT[filled])
        await pilot.click("#scorecard", offset=(x + 1, y))
        await wait_for(pilot, lambda: refusals, what="a word on the filled box")
        probe = copy.deepcopy(client.game)
        with pytest.raises(IllegalAction) as refusal:
            probe.apply(0, {"type": "score", "box": filled}, client.clock_ms)
        assert refusals == [refusal.value.words] and not client.sent and screen.cursor == chosen


async def test_a_hidden_button_does_nothing_and_all_five_held_says_why_as_r_does():
    """What the footer walk asks of keys (shown acts, hidden does not), of buttons: with all
    five dice held the Throw button goes as `r` leaves the footer; the cells it stood on do
    nothing, and Throw asked for anyway (the key, or a click that was on its way) says why."""
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        x, y = where(screen.drawn["buttons"], "Throw")
        for pos in range(5):
            await pilot.click("#dice", offset=die_offset(pos))
        await wait_for(pilot, lambda: screen.held == {0, 1, 2, 3, 4}, what="all five held by clicks")
        await pilot.pause()
        assert "Throw" not in screen.drawn["buttons"].plain
        before = screen.cursor
        await pilot.click("#buttons", offset=(x, y))     # where Throw was
        await pilot.pause()
        assert not client.sent and not refusals and screen.cursor == before
        await screen.action_click("roll")                # a click that was on its way
        await wait_for(pilot, lambda: refusals, what="the word on Throw")
        assert refusals == [ALL_HELD] and not client.sent
        refusals.clear()
        await pilot.press("r")
        await wait_for(pilot, lambda: refusals, what="r's word")
        assert refusals == [ALL_HELD] and not client.sent
