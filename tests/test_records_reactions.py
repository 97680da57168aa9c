"""Race reactions in the records: each race seat's median reaction is read from its log when
the game is indexed, a player's page shows its trend and the month's best, and a file from
before the figures is rebuilt from the logs with them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kismet_tui.review.race import race_reactions
from kismet_tui.rules import game_from_header
from kismet_tui.rules.playout import random_playout
from kismet_tui.rules.rng import SeededRNG
from kismet_tui.screens.records import reaction_words
from kismet_tui.widgets.glyphs import use_ascii
from kismet_tui.widgets.sparkline import sparkline
from protocol.gamelog import record_bytes
from server.records import FILE_NAME, RecordIndex, queries
from server.records.proof import bot_id, player_id
from server.records.schema import MIGRATIONS

pytestmark = pytest.mark.timeout(60)

ANA = player_id("key ana")
DAY_MS = 24 * 3600 * 1000
RACE_OPTIONS = {"countdown_ms": 200, "round_limit_ms": 1500, "reveal_ms": 100}


def write_race(games: Path, n: int, t0: int) -> tuple[Path, list[int | None]]:
    """A whole race game, Ana against a bot, played by the engine; its log and each seat's
    median reaction as the review reads it."""
    header = {
        "ruleset": "race",
        "seats": ["Ana", "Bot 1 (easy)"],
        "players": [ANA, bot_id("easy")],
        "seed": f"race {n}".encode(),
        "options": RACE_OPTIONS,
        "t0": t0,
    }
    game = game_from_header(header)
    events = random_playout(game, SeededRNG(f"play {n}".encode()), max_gap_ms=900 + 200 * n)
    path = games / f"2026010{n}-000000-table{n + 1}-race.kismet"
    with open(path, "wb") as out:
        out.write(record_bytes({"kind": "header", "header": header, "table": n + 1}))
        for event in events:
            out.write(record_bytes({"kind": "event", **event}))
        out.write(record_bytes({"kind": "end", "result": game.result()}))
    return path, [seat.median_ms for seat in race_reactions(header, events)]


def index(state: Path, paths: list[Path]) -> None:
    records = RecordIndex(state)
    records.start()
    for path in paths:
        records.game_ended(path)
    records.close()


@pytest.fixture
def three_games(tmp_path: Path) -> tuple[Path, list[list[int | None]], int]:
    games = tmp_path / "games"
    games.mkdir()
    start = 40 * DAY_MS
    written = [write_race(games, n, start + n * 10 * DAY_MS) for n in range(3)]  # 10 days apart
    index(tmp_path, [path for path, _ in written])
    return tmp_path, [medians for _, medians in written], start


def test_each_race_seat_keeps_its_median_reaction_and_the_page_shows_the_trend(three_games) -> None:
    state, medians, start = three_games
    assert all(m[0] is not None for m in medians), "Ana grabbed in every game"
    db = sqlite3.connect(state / FILE_NAME)
    stored = db.execute(
        "SELECT s.reaction_ms FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = ? ORDER BY g.started_ms",
        (ANA,),
    ).fetchall()
    assert [ms for (ms,) in stored] == [m[0] for m in medians]
    # Asked 15 days after the last game (games on days 0, 10 and 20): the 30 days before hold
    # the last two games only.
    now = start + 35 * DAY_MS
    page = queries.player(db, ANA, now_ms=now)
    race = next(s for s in page["standings"] if s["ruleset"] == "race")
    assert race["reaction"]["recent_ms"] == [m[0] for m in medians]  # oldest first
    assert race["reaction"]["fastest_month_ms"] == min(medians[1][0], medians[2][0])
    # The bot's figures are its own ("Easy bot"'s page).
    bot_page = queries.player(db, bot_id("easy"), now_ms=now)
    bot_race = next(s for s in bot_page["standings"] if s["ruleset"] == "race")
    assert bot_race["reaction"]["recent_ms"] == [m[1] for m in medians]
    db.close()


def test_a_records_file_from_before_the_figures_is_rebuilt_with_them(three_games) -> None:
    state, medians, _ = three_games
    path = state / FILE_NAME
    path.unlink()
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    db = sqlite3.connect(path)  # a version 2 file, as the host before this one left it
    for version in (0, 1):
        for statement in MIGRATIONS[version]:
            db.execute(statement)
    db.execute("INSERT INTO meta (key, value) VALUES ('schema', '2')")
    db.commit()
    db.close()
    index(state, [])
    db = sqlite3.connect(path)
    stored = db.execute(
        "SELECT s.reaction_ms FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = ? ORDER BY g.started_ms",
        (ANA,),
    ).fetchall()
    assert [ms for (ms,) in stored] == [m[0] for m in medians]
    assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("3",)
    db.close()


def test_a_log_the_engine_cannot_play_is_still_a_record_without_figures(tmp_path: Path) -> None:
    from tests.records_util import write_finished_log

    games = tmp_path / "games"
    games.mkdir()
    path = write_finished_log(
        games,
        "20260101-000000-table1-race.kismet",
        "race",
        ["Ana", "Bo"],
        [ANA, None],
        [3, 1],
        t0=0,
        t_end=5000,
    )  # no seed: unplayable
    index(tmp_path, [path])
    db = sqlite3.connect(tmp_path / FILE_NAME)
    assert db.execute(
        "SELECT score, reaction_ms FROM seats WHERE player_id = ?", (ANA,)
    ).fetchone() == (3, None)
    db.close()


def test_the_page_words_and_the_sparkline() -> None:
    words = reaction_words({"recent_ms": [900, 700, 400], "fastest_month_ms": 400})
    assert words == "\n         reaction 0.40 s  █▅▁ (last 3)  month's best 0.40 s"
    assert reaction_words({"recent_ms": [], "fastest_month_ms": None}) == ""
    assert reaction_words(None) == ""
    assert sparkline([5, 5]) == "▄▄"
    use_ascii(True)
    try:
        assert sparkline([1, 8]) == "_#"
    finally:
        use_ascii(False)


@pytest.fixture
def optimal_V(optimal_cache, monkeypatch):
    """The optimal table where the host's records find it (the review never builds one)."""
    from kismet_tui.bots import dice_levels
    from kismet_tui.review.dice import optimal_table

    path, _ = optimal_cache
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(path.parent))
    found = optimal_table()
    monkeypatch.setattr(dice_levels, "_optimal", found)
    return found


def dice_logs(games: Path, count: int = 2, ana: str = "hard") -> list[Path]:
    """`count` dice games of Ana (played by the `ana` bot's policy) against an easy bot."""
    from tests.review_util import play_dice
    from tests.review_util import write_log as write_dice

    paths = []
    for n in range(count):
        header, events = play_dice([ana, "easy"], seed=11 + n, names=["Ana", "Bot 1 (easy)"])
        header.update(players=[ANA, bot_id("easy")], t0=1_000 + n * DAY_MS)
        events = [{**event, "t": event["t"] + n * DAY_MS} for event in events]
        paths.append(
            write_dice(games / f"2026020{n}-000000-table{n + 1}-dice.kismet", header, events)
        )
    return paths


def test_each_dice_seat_keeps_its_review_cost_and_the_page_its_average(
    tmp_path: Path, optimal_V
) -> None:
    games = tmp_path / "games"
    games.mkdir()
    index(tmp_path, dice_logs(games))
    db = sqlite3.connect(tmp_path / FILE_NAME)
    costs = db.execute(
        "SELECT s.seat, s.dice_cost_centi FROM seats s JOIN games g ON g.id = s.game_id "
        "ORDER BY g.started_ms, s.seat"
    ).fetchall()
    assert [cost for seat, cost in costs if seat == 0] == [0, 0], (
        "the perfect player gives up nothing"
    )
    easy = [cost for seat, cost in costs if seat == 1]
    assert all(cost > 100 for cost in easy), easy
    page = queries.player(db, bot_id("easy"))
    review = next(s for s in page["standings"] if s["ruleset"] == "dice")["review"]
    assert review == {"recent_centi": easy, "average_centi": round(sum(easy) / 2)}
    assert next(s for s in queries.player(db, ANA)["standings"] if s["ruleset"] == "dice")[
        "review"
    ] == {"recent_centi": [0, 0], "average_centi": 0}
    db.close()


def test_without_the_optimal_table_a_dice_game_has_no_cost_and_the_page_says_nothing(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path / "no-table-here"))
    games = tmp_path / "games"
    games.mkdir()
    index(tmp_path, dice_logs(games, count=1, ana="medium"))
    db = sqlite3.connect(tmp_path / FILE_NAME)
    assert db.execute("SELECT dice_cost_centi FROM seats").fetchall() == [(None,), (None,)]
    review = next(s for s in queries.player(db, ANA)["standings"] if s["ruleset"] == "dice")[
        "review"
    ]
    assert review == {"recent_centi": [], "average_centi": None}
    from kismet_tui.screens.records import cost_words

    assert cost_words(review) == ""
    assert (
        cost_words({"recent_centi": [1230, 410], "average_centi": 820})
        == "\n         gives up 8.2 points a game  █▁ (last 2, lower is better)"
    )
    db.close()


def test_a_player_page_heading_fits_80_columns_before_three_rated_games():
    """A new player's page at 80x24 read "... average 30  (on the leaderboard" and "after 3
    rated games)" on the next line: that word now has a line of its own, every line fits."""
    from kismet_tui.screens.records import heading

    answer = {
        "found": True,
        "name": "root",
        "standings": [
            {
                "ruleset": "knock",
                "rating": 927,
                "wins": 0,
                "games": 1,
                "best": -11,
                "average": -11,
                "rated": 1,
            },
            {
                "ruleset": "race",
                "rating": 1062,
                "wins": 0,
                "games": 1,
                "best": 30,
                "average": 30,
                "rated": 1,
                "reaction": {"recent_ms": [1148], "fastest_month_ms": 1148},
            },
            {
                "ruleset": "dice",
                "rating": 1004,
                "wins": 12,
                "games": 140,
                "best": 315,
                "average": 215,
                "rated": 2,
            },
        ],
    }
    lines = heading("player", "dice", answer).plain.splitlines()
    assert all(len(line) <= 78 for line in lines), lines
    assert sum("on the leaderboard after 3 rated games" in line for line in lines) == 3, lines


def test_a_host_without_the_table_indexes_dice_games_without_loading_numpy(
    tmp_path: Path,
) -> None:
    """The records learn that no table is built from the cache folder alone: a host that
    never built one does not load numpy and the solver at its first dice game's end."""
    import os
    import subprocess
    import sys

    games = tmp_path / "games"
    games.mkdir()
    (log,) = dice_logs(games, count=1, ana="easy")
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from server.records.index import read_ended\n"
        f"game = read_ended(Path({str(log)!r}))\n"
        "print(game.dice_costs, 'numpy' in sys.modules)\n"
    )
    env = dict(os.environ, KISMET_SOLVER_CACHE=str(tmp_path / "no-table-here"))
    out = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    ).stdout
    assert out.split("\n")[0] == "[None, None] False"
