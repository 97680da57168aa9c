"""The footer lists only the keys that act now, in each state of the knock game and the lobby."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.test_ui_dice import wait_for
from tests.test_ui_end import footer_keys
from tests.test_ui_games import look_at_the_dice, make_app, seat_both

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def keys_when(pilot, app, condition, what: str, expect) -> dict:
    """Once `condition()` holds, wait for the footer to show what `expect(keys)` asks: the
    footer is rebuilt a moment after the message that changed the state, later on a busy
    machine. Fails naming the keys shown."""
    await wait_for(pilot, condition, what=what)
    try:
        await wait_for(pilot, lambda: expect(footer_keys(app)), what=what)
    except AssertionError:
        raise AssertionError(f"{what}: the footer shows {footer_keys(app)}") from None
    return footer_keys(app)


async def test_knock_footer_follows_the_turn(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "knock", {"knock_window_ms": 0})
            await keys_when(pilot, app, lambda: True, "choosing the pre-lay",
                            lambda keys: "enter" in keys and "backspace" in keys and "r" not in keys)
            await pilot.press("enter")
            await other.prelay([])
            game = client.game
            await wait_for(pilot, lambda: game.phase == "play", what="the pre-lays")
            if game.view(1)["turn"] == 1:                    # Ana throws first: play her turn
                await keys_when(pilot, app, lambda: True, "Ana's turn",
                                lambda keys: "r" in keys and "p" not in keys and "k" not in keys)
                await pilot.press("r")
                await keys_when(pilot, app, lambda: game.view(1)["stage"] == "decide", "Ana's throw",
                                lambda keys: "p" in keys and "r" not in keys and "k" not in keys)
                await pilot.press("p")
            await wait_for(pilot, lambda: game.view(1)["turn"] == 0, what="Bo's turn")
            await keys_when(pilot, app, lambda: True, "Bo's turn (Bo throws, not Ana)",
                            lambda keys: "r" not in keys and "p" not in keys)
            await other.act({"type": "roll"})
            await keys_when(pilot, app, lambda: (game.view(1)["roll"] or {}).get("roller") == 0,
                            "Bo's throw", lambda keys: "k" in keys and "r" not in keys and "p" not in keys)
            await look_at_the_dice(pilot, client)
            await pilot.press("k")
            await keys_when(pilot, app, lambda: 1 in game.view(1)["roll"]["knocked"],
                            "Ana's knock (one knock per throw)", lambda keys: "k" not in keys)
            await client.close()


async def test_lobby_offers_talk_only_at_a_table(tmp_path):
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await keys_when(pilot, app, lambda: client.state == "connected", "connection",
                            lambda keys: "t" not in keys and "n" in keys)
            await pilot.press("n", "enter")                   # a new dice table
            await keys_when(pilot, app, lambda: client.table is not None
                            and type(app.screen).__name__ == "LobbyScreen", "the table",
                            lambda keys: "t" in keys)
            await client.close()
