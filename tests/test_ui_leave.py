"""One ctrl+l takes you to the lobby, and says so: from a running game, from the results box
and from the board after the game (issue 21 point 3: it used to leave a dead game screen, or
close only the box, whose enter then showed "1. Seat 2" with no names)."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import make_app, play_dice_to_the_end, seat_both, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def press_ctrl_l_once(pilot, app) -> None:
    await pilot.press("ctrl+l")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "LobbyScreen", what="the lobby")
    names = [type(screen).__name__ for screen in app.screen_stack]
    assert not any(name.endswith(("GameScreen", "DiceScreen", "EndScreen")) for name in names), (
        names
    )
    assert any("in the lobby" in words for words in app.notices_shown), app.notices_shown


@pytest.mark.parametrize("where", ["game", "results", "board"])
async def test_one_ctrl_l_reaches_the_lobby(tmp_path, where):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "dice", {})
            if where != "game":
                await play_dice_to_the_end(pilot, app, client, other)
                await wait_for(
                    pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box"
                )
            if where == "board":
                await pilot.press("escape")
                await wait_for(
                    pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the board"
                )
            await press_ctrl_l_once(pilot, app)
            assert client.table is None
            if where == "game":
                # The seat is kept while the game goes on (the host marks it away), and the
                # notice says how to take it back.
                assert any("Your seat waits 30 s" in words for words in app.notices_shown)
                await wait_for(pilot, lambda: other.table["seats"][1]["away"], what="Ana away")
            else:
                await wait_for(
                    pilot, lambda: len(other.table["seats"]) == 1, what="Ana's seat freed"
                )
            await client.close()
