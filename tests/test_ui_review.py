"""The dice review on screen: the end box's cost and costliest decisions, and the review
screen stepped by key and by click (opened from kismet-replay, which shows the end box too);
before the table is built, the offer to build it and wait."""

from __future__ import annotations

import sys

import pytest

from kismet_tui.bots import dice_levels
from kismet_tui.replay import ReplayApp
from kismet_tui.review.dice import optimal_table, review_dice_game
from kismet_tui.review.text import end_lines
from kismet_tui.screens.review import NOT_BUILT, ReviewScreen
from kismet_tui.solver import background, table
from tests.review_util import play_dice
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


@pytest.fixture
def solo_game(optimal_cache, monkeypatch):
    """A solo game of the medium bot (it slips now and then: its review has costs), with the
    optimal table in place as a player's cache has it; and its review."""
    path, _ = optimal_cache
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(path.parent))
    V = optimal_table()
    monkeypatch.setattr(dice_levels, "_optimal", V)
    header, events = play_dice(["medium"], seed=5, names=["Mia"])
    return header, events, review_dice_game(header, events, V)


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def footer_keys(app) -> dict[str, str]:
    return {
        key: active.binding.description
        for key, active in app.screen.active_bindings.items()
        if active.enabled and active.binding.show
    }


async def test_the_end_box_names_the_cost_and_the_costliest_three_then_the_review_steps(solo_game):
    header, events, review = solo_game
    seat = review.seats[0]
    assert len(seat.costliest()) == 3, "the seed should give a game with three costly decisions"
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the dice screen"
        )
        await pilot.press("end")
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen"
                and len(app.screen.query("#end-review")) > 0
            ),
            what="the end box",
        )
        await wait_for(
            pilot, lambda: "given up" in text_of(app, "#end-review"), what="the review's lines"
        )
        shown = " ".join(text_of(app, "#end-review").split())
        for line in end_lines(seat):  # "Turn 7: scored ...; best was ..., -4.2", a line each
            assert " ".join(line.split()) in shown
        assert f"{seat.total_cost:.1f} points given up" in shown
        assert footer_keys(app).get("v") == "Review"

        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ReviewScreen) and app.screen.review is not None,
            what="the review screen",
        )
        screen = app.screen
        turns = screen.turns()
        assert len(turns) >= 15 and screen.turn_at == 0
        assert "Turn 1 (1 of" in text_of(app, "#review-heading")
        keys = footer_keys(app)
        assert keys.get("right") == "Next turn" and keys.get("escape") == "Back"
        assert "left" not in keys, "no previous turn before the first"

        def turn_shown() -> str:
            return f"Turn {turns[screen.turn_at][0].turn} ({screen.turn_at + 1} of {len(turns)})"

        await pilot.press("right")  # by key
        assert screen.turn_at == 1 and turn_shown() in text_of(app, "#review-heading")
        await pilot.click("#review-next")  # by click
        await wait_for(pilot, lambda: screen.turn_at == 2, what="the click's step")
        body = text_of(app, "#review-turn")
        for decision in turns[2]:
            assert " ".join(map(str, decision.dice)) in body and f"cost {decision.cost:.2f}" in body
        assert "Aces" in body and "Total" in body  # the scorecard as it stood
        await pilot.press("left")
        assert screen.turn_at == 1
        await pilot.click("#review-previous")
        await wait_for(pilot, lambda: screen.turn_at == 0, what="the click back")
        assert app.screen.query_one("#review-previous").disabled
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box again"
        )


async def test_before_the_table_is_built_it_offers_to_wait_and_then_shows_the_review(
    solo_game, optimal_cache, tmp_path, monkeypatch
):
    header, events, review = solo_game
    source, _ = optimal_cache
    (tmp_path / "cache").mkdir()
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(dice_levels, "_optimal", None)
    # The build's child is a stand-in that puts the session's table in place (the real one
    # is tested in tests/test_solver_table.py): what matters is that waiting starts it.
    stand_in = (
        "import shutil, sys; s, d = sys.argv[1:]; "
        "shutil.copy(s[:-4] + '.json', d[:-4] + '.json'); shutil.copy(s, d); print('ready', d)"
    )
    target = table.cache_path()
    monkeypatch.setattr(
        background,
        "build_command",
        lambda: [sys.executable, "-c", stand_in, str(source), str(target)],
    )
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the dice screen"
        )
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ReviewScreen) and app.screen.missing,
            what="the word that the table is missing",
        )
        assert NOT_BUILT in text_of(app, "#review-heading")
        assert app.screen.query_one("#review-wait").display
        assert footer_keys(app).get("w") == "Build and wait"
        assert background.current(target) is None, "nothing is built before the player says so"
        await pilot.click("#review-wait")
        await wait_for(pilot, lambda: app.screen.review is not None, what="the review once built")
        assert app.screen.review.seats[0].total_cost == pytest.approx(
            review.seats[0].total_cost, abs=1e-3
        )
        assert not app.screen.query_one("#review-wait").display


async def test_the_records_open_the_review_of_a_dice_game_kept_here(solo_game, tmp_path):
    from tests.review_util import write_log
    from tests.scripted import canned_records
    from tests.uiutil import app_for, lobby_client, open_records

    header, events, review = solo_game
    best = canned_records("best")["rows"][0]  # the high scores: solo dice games
    write_log(tmp_path / best["log"], header, events)
    app = app_for(lobby_client())
    app.replay_folder = tmp_path
    async with app.run_test(size=(80, 24)) as pilot:
        await open_records("2")(pilot)  # (the race game's review: test_ui_review_rounds.py)
        records = app.screen
        await pilot.press("4")
        await wait_for(
            pilot,
            lambda: records.view == "best" and records.answer and records.answer["view"] == "best",
            what="the high scores",
        )
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ReviewScreen) and app.screen.review is not None,
            what="the review from the records",
        )
        assert app.screen.review.seats[0].total_cost == pytest.approx(review.seats[0].total_cost)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is records, what="the records again")


async def test_the_end_box_gives_the_review_once_the_table_was_built_from_it(
    solo_game, optimal_cache, tmp_path, monkeypatch
):
    """Built from the end box (v, then wait), the table is there when the player comes back:
    the box gives the cost and the costliest three, not the word that it is not built."""
    header, events, review = solo_game
    source, _ = optimal_cache
    (tmp_path / "cache").mkdir()
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(dice_levels, "_optimal", None)
    stand_in = (
        "import shutil, sys; s, d = sys.argv[1:]; "
        "shutil.copy(s[:-4] + '.json', d[:-4] + '.json'); shutil.copy(s, d); print('ready', d)"
    )
    target = table.cache_path()
    monkeypatch.setattr(
        background,
        "build_command",
        lambda: [sys.executable, "-c", stand_in, str(source), str(target)],
    )
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the dice screen"
        )
        await pilot.press("end")
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen"
                and len(app.screen.query("#end-review")) > 0
            ),
            what="the end box",
        )
        assert "not built yet" in text_of(app, "#end-review")
        await pilot.press("v")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ReviewScreen) and app.screen.review is not None,
            what="the review once built",
        )
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box again"
        )
        await wait_for(
            pilot, lambda: "given up" in text_of(app, "#end-review"), what="the review's lines"
        )
        assert f"{review.seats[0].total_cost:.1f} points given up" in " ".join(
            text_of(app, "#end-review").split()
        )
