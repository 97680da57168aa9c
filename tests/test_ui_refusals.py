"""A refusal from the engine names players, not seat numbers."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import make_app, seat_both, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def test_not_your_turn_names_the_player_to_move(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "dice", {})
            game = client.game
            if game.view(1)["current"] == 1:  # Ana first: her turn, by keys
                await pilot.press("r")
                await wait_for(pilot, lambda: game.view(1)["can_score"], what="Ana's throw")
                await pilot.press("enter")
            await wait_for(pilot, lambda: game.view(1)["current"] == 0, what="Bo's turn")
            client.act_nowait({"type": "roll", "hold": []})  # out of turn: the engine refuses
            await wait_for(
                pilot,
                lambda: any("Not your turn" in n for n in app.notices_shown),
                what="the refusal",
            )
            words = next(n for n in app.notices_shown if "Not your turn" in n)
            assert "Bo is rolling" in words and "seat" not in words.lower(), words
            await client.close()


async def test_a_refused_grab_leaves_every_card_visible(tmp_path):
    """A grab before the dice is refused: the words go to the status line and the move log,
    and no widget (a toast) lies over the circle of cards meanwhile."""
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        # (Textual shows no toasts in tests unless asked: ask, so one over the cards would show.)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await seat_both(
                pilot, app, client, other, "race", {"countdown_ms": 5000, "round_limit_ms": 20000}
            )
            assert client.game.phase == "countdown"
            await pilot.press("c")  # too early: refused
            await wait_for(pilot, lambda: app.notice is not None, what="the refusal")
            words = app.notice.words
            await wait_for(
                pilot,
                lambda: words[:30] in str(app.screen.query_one("StatusBar").content),
                what="the refusal on the status line",
            )
            bar = str(app.screen.query_one("StatusBar").content)
            assert words[:30] in bar
            log_text = "".join(line.text for line in app.screen.query_one("#movelog").lines)
            assert "".join(words.split()) in "".join(log_text.split())  # (the log wraps lines)
            circle = app.screen.query_one("#circle")
            region = circle.region
            board = {circle, app.screen.query_one("#clock"), app.screen.query_one("#board")}
            for y in range(region.y, region.bottom):
                for x in range(region.x, region.right):
                    widget, _ = app.screen.get_widget_at(x, y)
                    assert widget in board, f"{widget!r} covers the circle at {x},{y}"
            await client.close()
