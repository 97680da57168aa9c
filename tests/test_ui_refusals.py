"""A refusal from the engine names players, not seat numbers."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.test_ui_dice import wait_for
from tests.test_ui_games import make_app, seat_both

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def test_not_your_turn_names_the_player_to_move(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "dice", {})
            game = client.game
            if game.view(1)["current"] == 1:                 # Ana first: her turn, by keys
                await pilot.press("r")
                await wait_for(pilot, lambda: game.view(1)["can_score"], what="Ana's throw")
                await pilot.press("enter")
            await wait_for(pilot, lambda: game.view(1)["current"] == 0, what="Bo's turn")
            client.act_nowait({"type": "roll", "hold": []})  # out of turn: the engine refuses
            await wait_for(pilot, lambda: any("Not your turn" in str(n.message) for n in app._notifications),
                           what="the refusal")
            words = next(str(n.message) for n in app._notifications if "Not your turn" in str(n.message))
            assert "Bo is rolling" in words and "seat" not in words.lower(), words
            await client.close()
