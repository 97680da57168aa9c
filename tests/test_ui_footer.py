"""The footer lists only the keys that act now, in each state of the knock game and the lobby."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.test_ui_dice import wait_for
from tests.test_ui_end import footer_keys
from tests.test_ui_games import make_app, seat_both

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(90)]


async def keys_when(pilot, app, condition, what: str) -> dict:
    await wait_for(pilot, condition, what=what)
    await pilot.pause(0.1)  # the footer is rebuilt after the message that changed the state
    return footer_keys(app)


async def test_knock_footer_follows_the_turn(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "knock", {"knock_window_ms": 0})
            keys = footer_keys(app)
            assert "enter" in keys and "backspace" in keys and "r" not in keys, keys  # choosing
            await pilot.press("enter")
            await other.prelay([])
            game = client.game
            await wait_for(pilot, lambda: game.phase == "play", what="the pre-lays")
            if game.view(1)["turn"] == 1:                    # Ana throws first: play her turn
                keys = await keys_when(pilot, app, lambda: True, "Ana's turn")
                assert "r" in keys and "p" not in keys and "k" not in keys, keys
                await pilot.press("r")
                keys = await keys_when(pilot, app, lambda: game.view(1)["stage"] == "decide", "Ana's throw")
                assert "p" in keys and "r" not in keys and "k" not in keys, keys
                await pilot.press("p")
            await wait_for(pilot, lambda: game.view(1)["turn"] == 0, what="Bo's turn")
            keys = await keys_when(pilot, app, lambda: True, "Bo's turn")
            assert "r" not in keys and "p" not in keys, f"Bo is throwing, not Ana: {keys}"
            await other.act({"type": "roll"})
            keys = await keys_when(pilot, app, lambda: (game.view(1)["roll"] or {}).get("roller") == 0,
                                   "Bo's throw")
            assert "k" in keys and "r" not in keys and "p" not in keys, keys
            await pilot.press("k")
            keys = await keys_when(pilot, app, lambda: 1 in game.view(1)["roll"]["knocked"], "Ana's knock")
            assert "k" not in keys, f"one knock per throw: {keys}"
            await client.close()


async def test_lobby_offers_talk_only_at_a_table(tmp_path):
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            keys = await keys_when(pilot, app, lambda: client.state == "connected", "connection")
            assert "t" not in keys and "n" in keys, keys
            await pilot.press("n", "enter")                   # a new dice table
            keys = await keys_when(pilot, app, lambda: client.table is not None
                                   and type(app.screen).__name__ == "LobbyScreen", "the table")
            assert "t" in keys, keys
            await client.close()
