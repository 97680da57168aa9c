"""How the screens look after things a newcomer does: resize the window, press a key twice,
read a long line at 80 columns. Scripted positions (tests/scripted.py), the real app driven
by Pilot.
"""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from tests import test_ui_snapshots as snaps
from tests.test_ui_dice import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def log_rows(app) -> list[str]:
    """The move log's lines as drawn (all of them, scrolled or not)."""
    log = app.screen.query_one("#movelog")
    return ["".join(segment.text for segment in strip).rstrip() for strip in log.lines]


def sentences_said(app) -> list[str]:
    return [text.plain for text in app.screen.query_one("#movelog").said]


@pytest.mark.parametrize("game, screen", [(snaps.dice_mid_game, "DiceScreen"), (snaps.knock_mid_game, "KnockScreen")])
async def test_the_move_log_wraps_again_when_the_window_shrinks(game, screen):
    app = KismetApp(game(), address="this computer")
    async with app.run_test(size=(160, 40)) as pilot:
        await snaps.until_screen(screen)(pilot)
        await pilot.resize_terminal(80, 24)
        log = app.screen.query_one("#movelog")
        await wait_for(pilot, lambda: log.wrapped_at == log.scrollable_content_region.width, what="the log wrapped again")
        width = log.scrollable_content_region.width
        rows = log_rows(app)
        assert rows and max(len(row) for row in rows) <= width
        # Nothing cut: the rows read back as every sentence, word for word.
        assert " ".join(" ".join(rows).split()) == " ".join(" ".join(sentences_said(app)).split())


async def test_knock_move_log_uses_the_width_of_a_big_window():
    app = KismetApp(snaps.knock_mid_game(), address="this computer")
    async with app.run_test(size=(200, 50)) as pilot:
        await snaps.until_screen("KnockScreen")(pilot)
        log = app.screen.query_one("#movelog")
        await wait_for(pilot, lambda: log.wrapped_at == log.scrollable_content_region.width, what="the log wrapped again")
        assert log.scrollable_content_region.width > 150
        # Every sentence of this game fits one line of a 175-column log.
        assert len(log_rows(app)) == len(sentences_said(app))
