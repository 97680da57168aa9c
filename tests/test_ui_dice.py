"""The dice screen through a real host on loopback: lobby -> new table -> hold, throw, score."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from tests.netutil import running_host
from tests.uiutil import solo_dice, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def test_solo_dice_turn_changes_the_scorecard(tmp_path):
    async with running_host(tmp_path) as host:
        client = Client(reconnect=False)
        app = KismetApp(
            client,
            connect=lambda: client.connect("127.0.0.1", host.port, "Ana"),
            address=f"127.0.0.1:{host.port}",
            on_quit=client.close,
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("n")  # new table form: dice, no bots
            await pilot.press("enter")
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            await pilot.press("g")  # start (owner, solo)
            await wait_for(
                pilot,
                lambda: client.game is not None and getattr(app.screen, "RULESET", None) == "dice",
                what="the dice screen",
            )
            game = client.game
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 1, what="the first throw")
            first = list(game.view(0)["dice"])
            await pilot.press("1", "3")  # hold dice 1 and 3
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 2, what="the second throw")
            second = game.view(0)["dice"]
            assert second[0] == first[0] and second[2] == first[2], "held dice must not change"
            screen = app.screen
            chosen = screen.cursor
            assert chosen is not None
            expected = game.view(0)["preview"][chosen]["points"]
            await pilot.press("enter")
            await wait_for(
                pilot, lambda: game.view(0)["cards"][0][chosen] is not None, what="the score"
            )
            assert game.view(0)["cards"][0][chosen] == expected

            def log_text() -> str:
                return "\n".join(str(line.text) for line in app.screen.query_one("#movelog").lines)

            await wait_for(
                pilot,
                lambda: "Ana scores" in log_text() or "Ana scratches" in log_text(),
                what="the score in the move log",
            )
            assert str(expected) in str(app.screen.query_one("#scorecard").content)
            await client.close()


async def test_whole_solo_game_by_keys_then_rematch_keeps_the_table(tmp_path):
    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            table_id = client.table["id"]
            game = client.game
            for turn in range(15):
                await pilot.press("r")
                await wait_for(pilot, lambda: game.view(0)["can_score"], what=f"throw {turn}")
                await pilot.press("enter")  # the best box, chosen for us
                await wait_for(
                    pilot,
                    lambda: (
                        sum(v is not None for v in game.view(0)["cards"][0].values()) == turn + 1
                    ),
                    what=f"score {turn}",
                )
            await wait_for(
                pilot,
                lambda: (
                    type(app.screen).__name__ == "EndScreen"
                    and len(app.screen.query("#ranking")) > 0
                ),
                what="the end screen",
            )
            total = game.result()["scores"][0]
            assert f"{total:>5} points" in str(app.screen.query_one("#ranking").content)
            # The revealed seed checked out against the commit and every die: said in words.
            await wait_for(
                pilot,
                lambda: "Verified" in str(app.screen.query_one("#fairness").content),
                what="the verified line",
            )
            await pilot.press("r")  # rematch
            await wait_for(
                pilot,
                lambda: (
                    client.game is not None
                    and client.game is not game
                    and getattr(app.screen, "RULESET", None) == "dice"
                ),
                what="the rematch",
            )
            assert client.table["id"] == table_id and client.table["games_played"] == 1
            assert app.screen.game is client.game
            await client.close()


async def _hint_after_one_throw(host) -> tuple[str, dict, object]:
    """Open a solo dice table, throw once, press h: the hint line, the advisor's best
    choice, and the screen (its held dice and box cursor)."""
    from kismet_tui.screens import dice as dice_screen

    async with solo_dice(host) as (app, pilot, client):
        await pilot.press("r")
        await wait_for(pilot, lambda: client.game.view(0)["rolls_used"] == 1, what="a throw")
        screen = app.screen
        await wait_for(pilot, lambda: dice_screen._advisor() is not None, 30, "the advisor")
        best = dice_screen._advisor()(client.game, 0)[0]["action"]

        def hint_lines() -> list[str]:
            return [
                line.text
                for line in screen.query_one("#movelog").lines
                if line.text.startswith("Hint")
            ]

        await pilot.press("1")  # the player's own choice: hold die 1
        await pilot.press("h")
        await wait_for(pilot, lambda: hint_lines(), 10, "the hint")
        await client.close()
        return hint_lines()[0], best, screen


def _assert_on_board(best: dict, screen) -> None:
    """The hint is marked on the board, and the player's own holds are left alone."""
    assert screen.held == {0}, "a hint must not change the dice the player holds"
    if best["type"] == "roll":
        assert screen.hint_hold == set(best["hold"])
    else:
        assert screen.hint_box == best["box"]


async def test_hint_without_the_table_is_an_estimate_and_still_shows_the_choice(tmp_path):
    # A fresh user folder has no optimal table: the hint must say it is an estimate.
    from kismet_tui.bots import dice_levels

    assert dice_levels.optimal_table() is None
    async with running_host(tmp_path) as host:
        line, best, screen = await _hint_after_one_throw(host)
    assert line.startswith("Hint (estimate): ")
    _assert_on_board(best, screen)


async def test_hint_with_an_exact_table_is_not_marked(tmp_path, monkeypatch):
    # Inject a table as if the optimal one were built (the heuristic values stand in for it:
    # what matters here is that the advisor reports exact play).
    from kismet_tui.bots import advisor
    from kismet_tui.solver import heuristic

    injected = heuristic.approximate_table()
    monkeypatch.setattr(advisor, "optimal_table", lambda: injected)
    async with running_host(tmp_path) as host:
        line, best, screen = await _hint_after_one_throw(host)
    assert line.startswith("Hint: ")
    _assert_on_board(best, screen)


async def test_arrow_keys_move_the_box_choice(tmp_path):
    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            await pilot.press("r")
            await wait_for(pilot, lambda: client.game.view(0)["can_score"], what="a throw")
            screen = app.screen
            from kismet_tui.rules.dice import BOXES

            start = screen.cursor
            await pilot.press("down")
            assert screen.cursor == BOXES[(BOXES.index(start) + 1) % len(BOXES)]
            await pilot.press("up", "up")
            assert screen.cursor == BOXES[(BOXES.index(start) - 1) % len(BOXES)]
            chosen = screen.cursor
            await pilot.press("enter")
            await wait_for(
                pilot, lambda: client.game.view(0)["cards"][0][chosen] is not None, what="the score"
            )
            await client.close()


async def test_a_hint_without_the_optimal_table_says_it_is_an_estimate(tmp_path, monkeypatch):
    from kismet_tui.bots import advisor
    from kismet_tui.screens import dice as dice_screen
    from kismet_tui.screens.help import HelpScreen

    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            await pilot.press("r")
            await wait_for(pilot, lambda: client.game.view(0)["rolls_used"] == 1, what="a throw")
            screen = app.screen
            await wait_for(pilot, lambda: dice_screen._advisor() is not None, 30, "the advisor")

            def hints() -> list[str]:
                return [
                    line.text for line in screen.query_one("#movelog").lines if "Hint" in line.text
                ]

            answers = []
            shown = screen.show_hint
            screen.show_hint = lambda choices: (answers.append(choices), shown(choices))
            # Whatever this machine has built, the line says which kind of hint it is.
            exact = dice_screen._advisor()(client.game, 0)[0]["exact"]
            await pilot.press("h")
            await wait_for(pilot, lambda: len(hints()) == 1, 10, "the first hint")
            assert hints()[0].startswith("Hint: " if exact else "Hint (estimate): ")
            # Without the optimal table the advisor estimates, and the hint says so (a line
            # the same as the last one is not written again).
            monkeypatch.setattr(advisor, "optimal_table", lambda: None)
            await pilot.press("h")
            await wait_for(pilot, lambda: len(answers) == 2, 10, "the second hint")
            assert len(hints()) == (2 if exact else 1)
            assert hints()[-1].startswith("Hint (estimate): ")
            # The help tells how to build the table.
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
            assert "python -m kismet_tui.solver" in app.screen.source
            await client.close()


async def test_after_each_throw_enter_offers_the_best_box_until_the_player_chooses(tmp_path):
    """A new player pressed enter after a second throw and scratched 3 of a Kind: the box
    picked for the first throw stayed picked ("enter: 0 in 3 of a Kind"). Until the player
    chooses a box themselves, each throw picks the best one again; their own choice stays."""
    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            game, screen = client.game, app.screen

            def best_points() -> int:
                preview = game.view(0)["preview"]
                return max(
                    entry["points"]
                    for box, entry in preview.items()
                    if game.view(0)["cards"][0][box] is None
                )

            for turn in range(4):
                for throw in (1, 2, 3):
                    await pilot.press("r")
                    await wait_for(
                        pilot, lambda: game.view(0)["rolls_used"] == throw, what=f"throw {throw}"
                    )
                    await pilot.pause()
                    assert game.view(0)["preview"][screen.cursor]["points"] == best_points(), (
                        turn,
                        throw,
                    )
                await pilot.press("enter")
                await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 0, what="the score")
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 1, what="a throw")
            await pilot.press("down")
            mine = screen.cursor
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 2, what="a throw")
            await pilot.pause()
            assert screen.cursor == mine, "the player's own choice stays"
            await client.close()
