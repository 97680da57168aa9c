"""The race and knock reviews on screen (screens/review_rounds.py): race round by round, knock
throw by throw, stepped by key and by click, their lines the review modules' own; opened
by `v` from kismet-replay, from the end box and from the records' recent games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kismet_tui.replay import ReplayApp
from kismet_tui.review.knock import read_knock
from kismet_tui.review.race import read_race
from kismet_tui.review.words import knock_line, knock_throw_lines, race_line, race_round_lines
from kismet_tui.rules import game_from_header
from kismet_tui.rules.playout import random_playout
from kismet_tui.rules.rng import SeededRNG
from kismet_tui.screens.review_rounds import KnockReviewScreen, RaceReviewScreen
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def played(ruleset: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A whole random game of three (one a bot), as tests/test_review_race_knock.py plays them."""
    options = (
        {"countdown_ms": 200, "round_limit_ms": 800, "reveal_ms": 100} if ruleset == "race" else {}
    )
    header = {
        "ruleset": ruleset,
        "seats": ["Ana", "Bo", "Cy"],
        "players": ["player:ana", "bot:easy", "player:cy"],
        "seed": b"a",
        "options": options,
        "t0": 1_000_000,
    }
    weights = {"knock": 1} if ruleset == "knock" else None
    events = random_playout(
        game_from_header(header),
        SeededRNG(b"pa"),
        max_gap_ms=2000 if weights else 300,
        weights=weights,
        default_weight=24 if weights else 1,
    )
    return header, list(events)


def text_of(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def footer_keys(app: Any) -> dict[str, str]:
    return {
        key: active.binding.description
        for key, active in app.screen.active_bindings.items()
        if active.enabled and active.binding.show
    }


def expected_steps(
    ruleset: str, header: dict[str, Any], events: list[dict[str, Any]]
) -> tuple[list[str], list[list[str]]]:
    """The players' lines and each step's lines, from the review modules."""
    if ruleset == "race":
        seats, rounds = read_race(header, events)
        return [race_line(s) for s in seats], [race_round_lines(r, seats) for r in rounds]
    chances, throws = read_knock(header, events)
    return (
        [knock_line(s) for s in chances],
        [knock_throw_lines(t, chances) for t in throws if t.notable],
    )


async def step_through(
    app: Any, pilot: Any, ruleset: str, header: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    """On the review screen: the heading's player lines, then steps by key and by click, each
    shown as the review module words it."""
    players, steps = expected_steps(ruleset, header, events)
    assert len(steps) >= 3, "the game should give a few steps to walk"
    screen = app.screen
    heading = text_of(app, "#steps-heading").splitlines()
    assert heading[1:] == players and "(bot)" in players[1]
    step = "round" if ruleset == "race" else "throw"

    def shown() -> list[str]:
        return text_of(app, "#steps-step").splitlines()

    assert shown()[1:] == steps[0] and f"(1 of {len(steps)})" in shown()[0]
    keys = footer_keys(app)
    assert keys.get("right") == f"Next {step}" and keys.get("escape") == "Back"
    assert "left" not in keys, f"no previous {step} before the first"
    assert app.screen.query_one("#steps-previous").disabled
    await pilot.press("right")  # by key
    assert screen.at == 1 and shown()[1:] == steps[1]
    await pilot.click("#steps-next")  # by click
    await wait_for(pilot, lambda: screen.at == 2, what="the click's step")
    assert shown()[1:] == steps[2] and f"(3 of {len(steps)})" in shown()[0]
    await pilot.press("p")
    assert screen.at == 1
    await pilot.click("#steps-previous")
    await wait_for(pilot, lambda: screen.at == 0, what="the click back")
    await pilot.press("end")  # (the replay's keys stay off under the review)
    assert screen.at == 0 and app.screen is screen


@pytest.mark.parametrize(
    "ruleset, kind", [("race", RaceReviewScreen), ("knock", KnockReviewScreen)]
)
async def test_the_replay_opens_the_review_and_it_steps_by_key_and_click(
    ruleset: str, kind: type
) -> None:
    header, events = played(ruleset)
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == ruleset, what="the game screen"
        )
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, kind), what="the review screen")
        await step_through(app, pilot, ruleset, header, events)
        # Everything fits the smallest screen: the buttons' row shows.
        assert app.screen.query_one("#steps-buttons").region.height == 1
        await pilot.click("#steps-back")
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == ruleset, what="the game again"
        )


async def test_the_end_box_v_opens_a_race_review() -> None:
    header, events = played("race")
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "race", what="the race screen"
        )
        await pilot.press("end")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box")
        end_box = app.screen
        assert footer_keys(app).get("v") == "Review"
        await pilot.press("v")
        await wait_for(
            pilot, lambda: isinstance(app.screen, RaceReviewScreen), what="the race review"
        )
        _, steps = expected_steps("race", header, events)
        assert text_of(app, "#steps-step").splitlines()[1:] == steps[0]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is end_box, what="the end box again")


async def test_the_records_open_a_race_games_review_kept_here(tmp_path: Path) -> None:
    from tests.review_util import write_log
    from tests.scripted import canned_records
    from tests.uiutil import app_for, lobby_client, open_records

    race = canned_records("recent")["rows"][0]  # the recent games: a race game first
    assert race["ruleset"] == "race"
    header, events = played("race")
    write_log(tmp_path / race["log"], header, events)
    app = app_for(lobby_client())
    app.replay_folder = tmp_path
    async with app.run_test(size=(80, 24)) as pilot:
        await open_records("2")(pilot)
        records = app.screen
        assert "v: review" in text_of(app, "#records-words")
        await pilot.press("v")
        await wait_for(
            pilot, lambda: isinstance(app.screen, RaceReviewScreen), what="the race review"
        )
        players, _ = expected_steps("race", header, events)
        assert text_of(app, "#steps-heading").splitlines()[1:] == players
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is records, what="the records again")
