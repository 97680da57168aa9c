"""The records on screen: the records screen from the lobby (h), its views and pages, and the
end box's rating change and the evening's standings. Pictures from a scripted host's answers
(tests/scripted.py canned_records) at 80x24 and 120x40; and a real game against a real host's
bot, driven by Pilot, whose records then show in the end box and on the records screen."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from tests.netutil import running_host
from tests.scripted import ScriptedClient, table_for
from tests.uiutil import (
    SIZES,
    app_for,
    lobby_client,
    open_records,
    pass_every_round,
    until_screen,
    wait_for,
)

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


@pytest.mark.parametrize("size", SIZES)
def test_records_leaderboard(snap_compare, size):
    assert snap_compare(app_for(lobby_client()), terminal_size=size, run_before=open_records())


@pytest.mark.parametrize("size", SIZES)
def test_records_my_page(snap_compare, size):
    assert snap_compare(app_for(lobby_client()), terminal_size=size, run_before=open_records("3"))


@pytest.mark.parametrize("size", SIZES)
def test_records_high_scores(snap_compare, size):
    assert snap_compare(app_for(lobby_client()), terminal_size=size, run_before=open_records("4"))


@pytest.mark.parametrize("size", SIZES)
def test_end_box_with_rating_change_and_standings(snap_compare, size):
    client = ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"])  # the whole game
    client.table = table_for("dice", ["Ana", "Bot 1 (medium)"], state="finished")
    client.table["seats"][0].update(wins=2, outcome={"rating": 1046, "change": 23, "best": True})
    client.table["seats"][1].update(wins=1, outcome={"rating": 990, "change": -12, "best": False})
    assert snap_compare(app_for(client), terminal_size=size, run_before=until_screen("EndScreen"))


async def test_a_leaderboard_row_opens_that_players_page_and_a_remote_replay_gets_words():
    app = app_for(lobby_client())
    async with app.run_test(size=(80, 24)) as pilot:
        await open_records()(pilot)
        screen = app.screen
        assert "Leaderboard" in str(screen.query_one("#records-heading").content)
        await pilot.press("down", "enter")  # the second row: Bo
        await wait_for(pilot, lambda: screen.view == "player", what="the player view")
        assert screen.player == "b" * 32
        await wait_for(pilot, lambda: screen.answer and screen.answer.get("name"), what="the page")
        await pilot.press("enter")  # a game of theirs: its log is on the host, not here
        await wait_for(
            pilot, lambda: any("kept on the host" in w for w in app.notices_shown), what="the words"
        )


@pytest.mark.network
async def test_a_game_against_a_bot_shows_its_rating_change_and_standings_and_the_records(tmp_path):
    from kismet_tui.bots.runner import bot_factory
    from tests.netutil import FAST

    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        client = Client(reconnect=False)
        client.player_key = "k" * 43
        app = KismetApp(
            client,
            connect=lambda: client.connect("127.0.0.1", host.port, "Ana"),
            address=f"127.0.0.1:{host.port}",
            on_quit=client.close,
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await client.create_table("race", FAST["race"], bots=["hard"])
            await wait_for(pilot, lambda: client.table["seats"][1]["connected"], what="the bot")
            await client.start()
            await wait_for(pilot, lambda: client.game is not None, what="the game")
            await pass_every_round(pilot, client.game)
            await wait_for(
                pilot,
                lambda: (
                    type(app.screen).__name__ == "EndScreen"
                    # (none yet while the box is still being put together)
                    and any(
                        "Your rating" in str(w.content) for w in app.screen.query("#records-line")
                    )
                ),
                what="the rating change in the end box",
            )
            line = str(app.screen.query_one("#records-line").content)
            assert (
                "Won tonight (since " in line
                and "Ana 0" in line
                and "Bot 1 (hard) 1" in line
                and "(-" in line
            )
            await pilot.press("ctrl+l")  # to the lobby
            await wait_for(pilot, lambda: client.table is None, what="leaving the table")
            if type(app.screen).__name__ != "LobbyScreen":
                await pilot.press("ctrl+l")
            await wait_for(
                pilot,
                lambda: type(app.screen).__name__ == "LobbyScreen",
                what=f"the lobby (on {[type(s).__name__ for s in app.screen_stack]})",
            )
            await pilot.press("h")
            await wait_for(
                pilot,
                lambda: (
                    type(app.screen).__name__ == "RecordsScreen" and app.screen.answer is not None
                ),
                what="the records",
            )
            first = app.screen.answer
            await pilot.press("g")  # dice -> race
            await wait_for(
                pilot, lambda: app.screen.answer is not first, what="the race leaderboard"
            )
            assert app.screen.ruleset == "race"
            # One rated game is not enough for the leaderboard: the screen says how many are.
            assert app.screen.answer["rows"] == []
            assert "once 3 of their games moved their rating" in str(
                app.screen.query_one("#records-words").content
            )
            await pilot.press("3")  # my page: the game, rated
            await wait_for(pilot, lambda: app.screen.answer.get("standings"), what="my page")
            assert app.screen.answer["standings"][0]["rated"] == 1
            await client.close()
