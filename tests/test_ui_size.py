"""Below 80x24 every screen says the size it needs; the game comes back as it was on a resize."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from tests.uiutil import dice_mid_game, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


async def test_too_small_then_large_enough_again():
    client = dice_mid_game()
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "game", None) is client.game, what="the dice screen"
        )
        screen = app.screen
        screen.held = {1}  # a choice the player made
        await pilot.resize_terminal(70, 30)
        await wait_for(pilot, lambda: screen.has_class("-too-small"), what="the too-small word")
        await pilot.pause()
        word = screen.query_one("TooSmall")
        assert word.display and word.region.area > 0
        assert "It needs 80x24; this one is 70x30." in str(word.content)
        assert screen.query_one("#scorecard").region.area == 0, (
            "nothing of the game is drawn broken"
        )
        await pilot.resize_terminal(100, 22)
        await wait_for(
            pilot, lambda: "this one is 100x22" in str(word.content), what="the new size"
        )
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: not screen.has_class("-too-small"), what="the game again")
        await pilot.pause()
        assert app.screen is screen and screen.held == {1}, "the same screen, as it was"
        assert (
            screen.query_one("#scorecard").region.area > 0
            and screen.query_one("TooSmall").region.area == 0
        )


@pytest.mark.network
async def test_no_dice_key_acts_behind_the_too_small_word(tmp_path):
    """Seen at 60x20: r threw the dice behind the word, and typed letters made a blind race
    grab (with its penalty). Behind it nothing acts; at 80x24 the same keys act again."""
    from tests.netutil import running_host
    from tests.uiutil import settle, solo_dice

    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            await pilot.resize_terminal(60, 20)
            await wait_for(
                pilot, lambda: app.screen.has_class("-too-small"), what="the too-small word"
            )
            await pilot.press("r", "1", "enter", "h", "t", "x", "ctrl+l")
            await settle(pilot, client)
            assert client.events == [] and client.table is not None, "nothing acted behind the word"
            await pilot.resize_terminal(80, 24)
            await wait_for(
                pilot, lambda: not app.screen.has_class("-too-small"), what="the game again"
            )
            await pilot.press("r")
            await wait_for(
                pilot, lambda: client.game.view(0)["can_score"], what="the throw, now it shows"
            )
            await client.close()


@pytest.mark.network
async def test_no_race_grab_behind_the_too_small_word(tmp_path):
    from tests.netutil import connected, running_host
    from tests.uiutil import make_app, seat_both, settle

    async with running_host(tmp_path) as host:
        async with connected(host, "Bo") as other:
            app, client = make_app(host, "Ana")
            async with app.run_test(size=(80, 24)) as pilot:
                await seat_both(
                    pilot, app, client, other, "race", {"countdown_ms": 50, "round_limit_ms": 60000}
                )
                game = client.game
                await pilot.resize_terminal(60, 20)
                await wait_for(
                    pilot, lambda: app.screen.has_class("-too-small"), what="the too-small word"
                )
                await wait_for(pilot, lambda: game.phase == "grabbing", what="the first throw")
                await pilot.press(*"abcdefghijkp")
                await settle(pilot, client)
                assert not any(event["seat"] == 1 for event in client.events), "no blind grab"
                await pilot.resize_terminal(80, 24)
                await wait_for(
                    pilot, lambda: not app.screen.has_class("-too-small"), what="the game again"
                )
                await pilot.press("p")
                await wait_for(
                    pilot,
                    lambda: any(event["seat"] == 1 for event in client.events),
                    what="the pass",
                )
                await client.close()
