"""The help explains what the screens show in figures: the end box's rating change (first,
when `?` is pressed over it) and the dice hint's "(≈352)"."""

from __future__ import annotations

import pytest

from tests.scripted import ScriptedClient, table_for
from tests.uiutil import app_for, until_screen, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


async def test_help_over_the_end_box_explains_the_rating_change_first():
    client = ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"])  # the whole game
    client.table = table_for("dice", ["Ana", "Bot 1 (medium)"], state="finished")
    client.table["seats"][0].update(wins=1, outcome={"rating": 1017, "change": 17, "best": False})
    app = app_for(client)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen("EndScreen")(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="the help")
        words = " ".join(app.screen.source.split())
        assert words.startswith("## Your rating"), words[:80]
        assert "third place of four can gain a little" in words
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box again"
        )


def test_the_dice_help_says_what_a_hints_figure_is():
    from kismet_tui.screens.help import rules_text

    words = " ".join(rules_text("dice").split())
    assert "(≈352)" in words and "final score to expect" in words
    assert "## Your rating" in words  # (at the end, where the game's own help is first)
    assert not words.startswith("## Your rating")


@pytest.mark.parametrize("ruleset", ["dice", "knock"])
def test_the_help_of_a_game_with_turns_names_the_owners_b(ruleset):
    # The dice and knock screens bind `b` (the owner hands the seat on turn to a bot, [D31]);
    # their help's key table did not list it.
    from kismet_tui.screens.help import rules_text

    words = " ".join(rules_text(ruleset).split())
    assert "| `b` | the table's owner, on another player's turn: hand their seat to a bot" in words
