"""A large window is used: at 200x60 the dice (dice and knock screens) are drawn big, the
move log takes the rest; at 120x40 and below they stay as they were."""

from __future__ import annotations

import pytest

from kismet_tui.widgets.art import BIG_DIE_HEIGHT, BIG_DIE_WIDTH
from tests.uiutil import app_for, dice_mid_game, knock_mid_game, until_screen

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


@pytest.mark.parametrize(
    "game, screen", [(dice_mid_game, "DiceScreen"), (knock_mid_game, "KnockScreen")]
)
@pytest.mark.parametrize("size, big", [((200, 60), True), ((120, 40), False)])
async def test_big_dice_on_a_big_screen(game, screen, size, big):
    app = app_for(game())
    async with app.run_test(size=size) as pilot:
        await until_screen(screen)(pilot)
        await pilot.pause()
        dice = app.screen.query_one("#dice")
        assert dice.region.height == ((BIG_DIE_HEIGHT if big else 5) + 1), dice.region
        text = dice.text if hasattr(dice, "text") else dice.content  # (Lines, or a Static)
        top = str(text).split("\n")[0]
        first_die = top.split(" ")[0] if top.strip() else top
        assert len(first_die) == (BIG_DIE_WIDTH if big else 7), repr(top)
        log = app.screen.query_one("#movelog")
        assert log.region.right == size[0], "the log takes the width left"
