"""Pictures of every screen at 80x24 and 120x40 (and the too-small word at 60x20), compared
with the accepted SVGs in tests/__snapshots__/ by pytest-textual-snapshot: a layout change
fails here until someone looks at it and accepts it (`pytest --snapshot-update`).

Every picture is made from a fixed seed and a fixed seeded playout (tests/scripted.py), with
fixed names and a frozen host clock, so countdowns stand still and nothing depends on load
or order. The dice advisor is loaded first, so the footer's hint key is always there.
"""

from __future__ import annotations

import pytest

from kismet_tui.replay import ReplayApp
from kismet_tui.screens.dice import load_advisor
from tests.scripted import ScriptedClient
from tests.uiutil import (
    SIZES,
    app_for,
    dice_mid_game,
    knock_mid_game,
    lobby_client,
    race_mid_round,
    until_screen,
)

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


@pytest.fixture(autouse=True, scope="module")
def advisor_loaded():
    load_advisor()


@pytest.mark.parametrize("size", SIZES)
def test_lobby(snap_compare, size):
    assert snap_compare(
        app_for(lobby_client()), terminal_size=size, run_before=until_screen("LobbyScreen")
    )


@pytest.mark.parametrize("size", SIZES)
def test_new_table(snap_compare, size):
    async def open_form(pilot):
        await pilot.press("l")  # (leave the scripted table: the form opens only away from one)
        pilot.app.client.table = None
        pilot.app.screen.refresh_bindings()
        await pilot.press("n")
        for _ in range(300):
            if type(pilot.app.screen).__name__ == "NewTableScreen":
                break
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(
        app_for(lobby_client()),
        terminal_size=size,
        run_before=until_screen("LobbyScreen", open_form),
    )


@pytest.mark.parametrize("size", SIZES)
def test_dice_mid_game(snap_compare, size):
    assert snap_compare(
        app_for(dice_mid_game()), terminal_size=size, run_before=until_screen("DiceScreen")
    )


@pytest.mark.parametrize("size", SIZES)
def test_race_mid_round(snap_compare, size):
    assert snap_compare(
        app_for(race_mid_round()), terminal_size=size, run_before=until_screen("RaceScreen")
    )


@pytest.mark.parametrize("size", SIZES)
def test_knock_mid_game(snap_compare, size):
    assert snap_compare(
        app_for(knock_mid_game()), terminal_size=size, run_before=until_screen("KnockScreen")
    )


@pytest.mark.parametrize(
    "game",
    [
        pytest.param(dice_mid_game, id="dice"),
        pytest.param(race_mid_round, id="race"),
        pytest.param(knock_mid_game, id="knock"),
    ],
)
def test_no_color(snap_compare, monkeypatch, game):
    """NO_COLOR=1: no colour at all, and every colour still said in glyphs (the dice's colour
    words, HELD, the cards' marks)."""
    monkeypatch.setenv("NO_COLOR", "1")
    screen = {
        dice_mid_game: "DiceScreen",
        race_mid_round: "RaceScreen",
        knock_mid_game: "KnockScreen",
    }[game]
    assert snap_compare(app_for(game()), terminal_size=(80, 24), run_before=until_screen(screen))


@pytest.mark.parametrize("size", SIZES)
def test_end_of_a_game(snap_compare, size):
    client = ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"])  # the whole game
    assert snap_compare(app_for(client), terminal_size=size, run_before=until_screen("EndScreen"))


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare, size):
    async def press_help(pilot):
        await pilot.press("question_mark")
        for _ in range(300):
            if type(pilot.app.screen).__name__ == "HelpScreen":
                break
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(
        app_for(race_mid_round()),
        terminal_size=size,
        run_before=until_screen("RaceScreen", press_help),
    )


@pytest.mark.parametrize("size", SIZES)
def test_replay(snap_compare, size):
    source = ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"])
    app = ReplayApp(source.header, source.events, paused=True)

    async def forty_events(pilot):
        pilot.app.publish([pilot.app.source.next_event() for _ in range(40)])
        for _ in range(300):
            if pilot.app.screen.version >= 40:
                break
            await pilot.pause(0.01)
        await pilot.pause(0.6)  # the status line reads the count twice a second

    assert snap_compare(
        app, terminal_size=size, run_before=until_screen("DiceScreen", forty_events)
    )


def test_too_small(snap_compare):
    assert snap_compare(
        app_for(dice_mid_game()), terminal_size=(60, 20), run_before=until_screen("DiceScreen")
    )
