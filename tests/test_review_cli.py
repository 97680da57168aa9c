"""`kismet-replay --review FILE` and `--review --json`: the dice review printed from a log
file (the optimal table: tests/conftest.py optimal_cache, built once per session)."""

from __future__ import annotations

import json

import pytest

from kismet_tui.bots import dice_levels
from kismet_tui.cli import replay_main
from kismet_tui.review.dice import optimal_table
from kismet_tui.solver import table
from tests.review_util import play_dice, write_log

KEYS = {
    "seat",
    "name",
    "turn",
    "throw",
    "dice",
    "chosen",
    "best",
    "expected_chosen",
    "expected_best",
    "cost",
    "by_clock",
}


@pytest.fixture
def game_log(optimal_cache, monkeypatch, tmp_path):
    """A whole game of a hard bot ("Hal") and a greedy one ("Eve"), as a log file."""
    path, _ = optimal_cache
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(path.parent))
    monkeypatch.setattr(dice_levels, "_optimal", optimal_table())
    header, events = play_dice(["hard", "easy"], seed=3, names=["Hal", "Eve"])
    return write_log(tmp_path / "game.kismet", header, events)


def test_the_review_as_json_is_one_object_per_decision(game_log, capsys):
    assert replay_main(["--review", "--json", str(game_log)]) == 0
    decisions = json.loads(capsys.readouterr().out)
    assert {d["name"] for d in decisions} == {"Hal", "Eve"}
    for d in decisions:
        assert set(d) == KEYS
        assert 1 <= d["throw"] <= 3 and len(d["dice"]) == 5
        assert d["chosen"]["kind"] in ("hold", "score") and d["best"]["kind"] in ("hold", "score")
        assert set(d["chosen"]) == (
            {"kind", "hold"} if d["chosen"]["kind"] == "hold" else {"kind", "box", "points"}
        )
        assert d["cost"] >= 0 and d["cost"] == pytest.approx(
            d["expected_best"] - d["expected_chosen"], abs=1e-3
        )
    hal = [d for d in decisions if d["seat"] == 0]
    assert len(hal) >= 15 and all(d["cost"] == 0 and d["chosen"] == d["best"] for d in hal)
    assert any(d["cost"] > 0 for d in decisions if d["seat"] == 1)


def test_the_review_as_text_names_each_seat_turn_and_decision(game_log, capsys):
    assert replay_main(["--review", str(game_log)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("Dice review:")
    hal = next(line for line in lines if line.startswith("Hal: "))
    assert "0.00 points given up" in hal
    eve = lines.index(next(line for line in lines if line.startswith("Eve: ")))
    # Eve's three costliest decisions follow her summary, then her turns from the first.
    assert all(
        lines[eve + k].startswith("  Turn ") and "; best was " in lines[eve + k] for k in (1, 2, 3)
    )
    assert lines[eve + 4] == "  Turn 1  (card: empty)"
    assert lines[eve + 5].startswith("    throw 1  ")
    assert "best: the same" in out


def test_before_the_table_is_built_it_says_how_and_never_guesses(
    game_log, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path / "empty-cache"))
    assert replay_main(["--review", str(game_log)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "table is not built yet" in captured.err and "--build-table" in captured.err
    assert not table.cache_path().exists()  # nothing was built unasked


def test_build_table_builds_it_with_a_progress_line_then_reviews(
    game_log, optimal_cache, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path / "empty-cache"))
    built = []

    def ensure_built(progress, on_wait, on_damaged):  # the session's table stands for the build
        progress(1, 2)
        progress(2, 2)
        built.append(True)
        return optimal_cache[1]

    monkeypatch.setattr(table, "ensure_built", ensure_built)
    assert replay_main(["--review", "--build-table", str(game_log)]) == 0
    captured = capsys.readouterr()
    assert built and "Building the Kismet table" in captured.err and "100%" in captured.err
    assert captured.out.startswith("Dice review:")


def test_a_race_game_gets_its_own_review_and_the_options_go_together(tmp_path, capsys):
    race = write_log(
        tmp_path / "race.kismet",
        {"ruleset": "race", "seats": ["Ana", "Bo"], "seed": 1, "options": {}, "t0": 0},
        [],
        finished=False,
    )
    # No table needed: race is reviewed by its reaction times (docs/review.md, "Race").
    assert replay_main(["--review", str(race)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("How fast") and "Ana" in out and "no grabs" in out
    with pytest.raises(SystemExit):
        replay_main(["--json", str(race)])
    assert "go with --review" in capsys.readouterr().err
