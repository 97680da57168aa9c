"""Below 80x24 every screen says the size it needs; the game comes back as it was on a resize."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from tests.test_ui_dice import wait_for
from tests.test_ui_snapshots import dice_mid_game

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


async def test_too_small_then_large_enough_again():
    client = dice_mid_game()
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "game", None) is client.game, what="the dice screen")
        screen = app.screen
        screen.held = {1}                                   # a choice the player made
        await pilot.resize_terminal(70, 30)
        await wait_for(pilot, lambda: screen.has_class("-too-small"), what="the too-small word")
        await pilot.pause()
        word = screen.query_one("TooSmall")
        assert word.display and word.region.area > 0
        assert "It needs 80x24; this one is 70x30." in str(word.content)
        assert screen.query_one("#scorecard").region.area == 0, "nothing of the game is drawn broken"
        await pilot.resize_terminal(100, 22)
        await wait_for(pilot, lambda: "this one is 100x22" in str(word.content), what="the new size")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: not screen.has_class("-too-small"), what="the game again")
        await pilot.pause()
        assert app.screen is screen and screen.held == {1}, "the same screen, as it was"
        assert screen.query_one("#scorecard").region.area > 0 and screen.query_one("TooSmall").region.area == 0
