"""The records (server/records/): a real SQLite file in a temporary state folder, built from
real game logs. A rebuild gives what the live index wrote; ratings move as openskill says;
a damaged or newer file is set aside and rebuilt; pruning goes through the index."""

import shutil
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from openskill.models import PlackettLuce

from server.records import FILE_NAME, RecordIndex
from server.records.index import shown_rating
from server.records.proof import bot_id, player_id
from tests.netutil import ROOT
from tests.records_util import write_finished_log

pytestmark = pytest.mark.timeout(60)

ANA, BO, CY = player_id("key ana"), player_id("key bo"), player_id("key cy")


def dump(path):
    """Everything the index holds, in an order that does not depend on row ids."""
    db = sqlite3.connect(path)
    try:
        return {
            "games": db.execute(
                "SELECT log_file, ruleset, table_id, started_ms, ended_ms, seat_count, "
                "log_kept FROM games ORDER BY log_file"
            ).fetchall(),
            "seats": db.execute(
                "SELECT g.log_file, s.seat, s.player_id, s.name, s.score, s.won, "
                "s.rating_before, s.rating_after, s.personal_best FROM seats s "
                "JOIN games g ON g.id = s.game_id ORDER BY g.log_file, s.seat"
            ).fetchall(),
            "players": db.execute("SELECT * FROM players ORDER BY id").fetchall(),
            "standings": db.execute(
                "SELECT * FROM standings ORDER BY player_id, ruleset"
            ).fetchall(),
        }
    finally:
        db.close()


SERIES = [  # (ruleset, seats, players, scores)
    ("race", ["Ana", "Bo", "Bot 1 (easy)"], [ANA, BO, bot_id("easy")], [9, 4, 2]),
    ("race", ["Ana", "Bo", "Bot 1 (easy)"], [ANA, BO, bot_id("easy")], [3, 8, 8]),  # a tie
    ("race", ["Ana", "Cy"], [ANA, CY], [5, 5]),
    ("race", ["Anna", "Bo", "Guest"], [ANA, BO, None], [1, 7, 12]),  # unproven seat
    ("dice", ["Ana"], [ANA], [250]),
    ("dice", ["Ana"], [ANA], [301]),  # a new best
]


def write_series(games):
    paths = []
    for n, (ruleset, seats, players, scores) in enumerate(SERIES):
        paths.append(
            write_finished_log(
                games,
                f"2026010{n}-000000-table{n + 1}-{ruleset}.kismet",
                ruleset,
                seats,
                players,
                scores,
                t0=n * 10_000,
                t_end=n * 10_000 + 5_000,
                table=n + 1,
            )
        )
    return paths


def index_live(state_dir, paths, keep_games=None):
    """Each log handed to a running index as the host does at each game end; the outcomes."""
    records = RecordIndex(state_dir, keep_games)
    records.start()
    outcomes = []
    for path in paths:
        records.game_ended(path, outcomes.append)
    records.close()
    return records, outcomes


def test_a_rebuild_by_kismet_host_reindex_equals_the_live_index(tmp_path):
    live = tmp_path / "live"
    (live / "games").mkdir(parents=True)
    paths = write_series(live / "games")
    # The live index starts empty (no logs yet), then takes each game as it ends.
    records = RecordIndex(live)
    records.start()
    records.ready.wait(10)
    for path in paths:
        records.game_ended(path)
    records.close()
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(live / "games", rebuilt / "games")
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "--state-dir", str(rebuilt), "--reindex"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Rebuilt the records from 6 game logs" in done.stdout
    assert dump(live / FILE_NAME) == dump(rebuilt / FILE_NAME)
    assert len(dump(live / FILE_NAME)["games"]) == 6


def test_ratings_move_as_openskill_plackett_luce_says(tmp_path):
    (tmp_path / "games").mkdir()
    _records, outcomes = index_live(tmp_path, write_series(tmp_path / "games"))
    model = PlackettLuce()
    expected = {}
    for ruleset, _seats, players, scores in SERIES:
        rated = [(p, s) for p, s in zip(players, scores) if p is not None]
        if len(rated) < 2:
            continue
        teams = [[expected.get((p, ruleset)) or model.rating()] for p, _ in rated]
        for (p, _), team in zip(rated, model.rate(teams, scores=[s for _, s in rated])):
            expected[(p, ruleset)] = team[0]
    db = sqlite3.connect(tmp_path / FILE_NAME)
    for (player, ruleset), rating in expected.items():
        mu, sigma, shown = db.execute(
            "SELECT mu, sigma, rating FROM standings WHERE player_id = ? AND ruleset = ?",
            (player, ruleset),
        ).fetchone()
        assert (mu, sigma) == pytest.approx((rating.mu, rating.sigma), rel=1e-12)
        assert shown == shown_rating(rating.mu, rating.sigma)
    # The first game: the winner up, the last down, each change what the end box shows.
    first = [o.shown() for o in outcomes[0]]
    assert first[0]["change"] > 0 > first[2]["change"]
    assert first[0]["rating"] == 1000 + first[0]["change"]
    # The unproven seat has no rating and no player row; the others are rated without it.
    assert outcomes[3][2].shown() == {"rating": None, "change": None, "best": False}
    assert db.execute("SELECT COUNT(*) FROM players WHERE name = 'Guest'").fetchone()[0] == 0
    # Solo dice moves no rating; the second, higher score is a new personal best.
    assert outcomes[4][0].shown() == {"rating": None, "change": None, "best": False}
    assert outcomes[5][0].shown()["best"] is True
    # A player is shown under their latest name; a bot is one player per level.
    assert db.execute("SELECT name FROM players WHERE id = ?", (ANA,)).fetchone()[0] == "Ana"
    assert db.execute("SELECT is_bot FROM players WHERE id = 'bot:easy'").fetchone()[0] == 1
    wins = db.execute(
        "SELECT games, wins FROM standings WHERE player_id = ? AND ruleset = 'race'", (BO,)
    ).fetchone()
    assert wins == (3, 1)


def test_a_damaged_database_is_set_aside_with_words_and_rebuilt(tmp_path):
    (tmp_path / "games").mkdir()
    write_series(tmp_path / "games")
    (tmp_path / FILE_NAME).write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    records = RecordIndex(tmp_path)
    records.start()
    records.close()
    folders = list((tmp_path / "damaged").glob("records-*"))
    assert len(folders) == 1 and (folders[0] / FILE_NAME).exists()
    assert "rebuilt from the game logs" in (folders[0] / "why.txt").read_text()
    assert any("set aside" in line for line in records.start_words)
    assert len(dump(tmp_path / FILE_NAME)["games"]) == 6


def test_a_database_from_a_newer_host_is_set_aside_not_dropped(tmp_path):
    (tmp_path / "games").mkdir()
    write_series(tmp_path / "games")
    index_live(tmp_path, [])
    db = sqlite3.connect(tmp_path / FILE_NAME)
    with db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    db.close()
    records = RecordIndex(tmp_path)
    records.start()
    records.close()
    why = next((tmp_path / "damaged").glob("records-*/why.txt")).read_text()
    assert "newer kismet-host (records version 99" in why
    assert len(dump(tmp_path / FILE_NAME)["games"]) == 6


def test_keep_games_prunes_the_oldest_logs_through_the_index_and_keeps_their_rows(tmp_path):
    (tmp_path / "games").mkdir()
    paths = write_series(tmp_path / "games")
    index_live(tmp_path, paths, keep_games=2)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [p.name for p in paths[-2:]]
    games = dump(tmp_path / FILE_NAME)["games"]
    assert len(games) == 6 and [g[-1] for g in games] == [0, 0, 0, 0, 1, 1]


def test_a_full_disk_pauses_indexing_and_it_catches_up(tmp_path):
    (tmp_path / "games").mkdir()
    records = RecordIndex(tmp_path)
    records.start()
    records.ready.wait(10)
    # Games that end from now on: more than the file's free room holds.
    paths = [
        write_finished_log(
            tmp_path / "games",
            f"20260201-000000-table{n}-dice.kismet",
            "dice",
            [f"Player {n}"],
            [player_id(f"key {n}")],
            [n],
            t0=n,
            t_end=n + 1,
        )
        for n in range(300)
    ]
    # SQLite's own page limit: the file cannot grow, as on a full disk.
    pages = sqlite3.connect(tmp_path / FILE_NAME).execute("PRAGMA page_count").fetchone()[0]
    limited = threading.Event()  # (set before the games come: they go before any request)
    records.ask(
        lambda db: db.execute(f"PRAGMA max_page_count = {pages}").fetchall(),
        lambda _: limited.set(),
    )
    assert limited.wait(10)
    done = []
    for path in paths:
        records.game_ended(path, done.append)
    answered = []
    records.ask(lambda db: db.execute("SELECT COUNT(*) FROM games").fetchone()[0], answered.append)
    deadline = time.monotonic() + 30
    while not answered and time.monotonic() < deadline:
        time.sleep(0.01)
    assert records.paused and "disk" in records.paused and len(done) < len(paths)
    records.ask(lambda db: db.execute("PRAGMA max_page_count = 1000000").fetchall(), lambda _: None)
    records.close()  # writes what waits
    assert len(done) == len(paths) and records.paused is None
    assert len(dump(tmp_path / FILE_NAME)["games"]) == 300


def test_a_pruned_logs_name_given_to_a_new_game_is_a_new_record(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    name = "20260301-000000-table1-dice.kismet"
    first = write_finished_log(games, name, "dice", ["Ana"], [ANA], [200], t0=1000, t_end=2000)
    other = write_finished_log(
        games,
        "20260301-000001-table2-dice.kismet",
        "dice",
        ["Bo"],
        [BO],
        [210],
        t0=1500,
        t_end=2500,
    )
    records = RecordIndex(tmp_path, keep_games=1)
    records.start()
    records.ready.wait(10)
    assert not first.exists()  # pruned at start: the oldest of two, one kept
    # The store names logs by their start's second: a new game may get the freed name.
    write_finished_log(games, name, "dice", ["Ana"], [ANA], [250], t0=3000, t_end=4000)
    records.game_ended(games / name)
    records.close()
    rows = dump(tmp_path / FILE_NAME)["games"]
    assert [(r[0], r[3], r[-1]) for r in rows] == [
        (name, 1000, 0),
        (name, 3000, 1),
        (other.name, 1500, 0),
    ]


def test_a_records_file_that_cannot_be_opened_is_tried_again_and_the_games_wait(
    tmp_path, monkeypatch
):
    import server.records

    monkeypatch.setattr(server.records, "RETRY_S", 0.05)
    (tmp_path / "games").mkdir()
    write_series(tmp_path / "games")  # games of an earlier run, for the catch-up
    (tmp_path / FILE_NAME).mkdir()  # in the way: SQLite cannot open it
    records = RecordIndex(tmp_path)
    records.start()
    records.ready.wait(10)
    assert records.paused and "cannot open their file" in records.paused
    path = write_finished_log(
        tmp_path / "games",
        "20260501-000000-table9-dice.kismet",
        "dice",
        ["Ana"],
        [ANA],
        [280],
        t0=90_000,
        t_end=95_000,
        table=9,
    )  # one that ends now
    done = []
    records.game_ended(path, done.append)
    refused = []
    records.ask(lambda db: 1, refused.append)
    deadline = time.monotonic() + 30
    while not refused and time.monotonic() < deadline:
        time.sleep(0.01)
    assert isinstance(refused[0], RuntimeError) and not done
    (tmp_path / FILE_NAME).rmdir()  # out of the way again
    while not done and time.monotonic() < deadline:
        time.sleep(0.01)
    records.close()
    assert done and done[0][0].seat == 0 and records.paused is None
    assert len(dump(tmp_path / FILE_NAME)["games"]) == 7  # caught up with every log


def test_a_game_closed_unfinished_is_pruned_in_its_turn_and_a_running_one_never(tmp_path):
    import json

    games = tmp_path / "games"
    games.mkdir()
    (tmp_path / "tables").mkdir()
    running = write_finished_log(
        games,
        "20260401-000000-table1-dice.kismet",
        "dice",
        ["Ana", "Bo"],
        [ANA, BO],
        [0, 0],
        t0=0,
        t_end=100,
        finished=False,
    )
    (tmp_path / "tables" / "1.json").write_text(json.dumps({"id": 1, "game_file": running.name}))
    closed = write_finished_log(
        games,
        "20260401-000001-table2-race.kismet",
        "race",
        ["Cy", "Bo"],
        [CY, BO],
        [0, 0],
        t0=1000,
        t_end=1100,
        table=2,
        finished=False,
    )
    newer = [
        write_finished_log(
            games,
            f"20260401-00001{n}-table3-dice.kismet",
            "dice",
            ["Ana"],
            [ANA],
            [200 + n],
            t0=5000 + n,
            t_end=6000 + n,
            table=3,
        )
        for n in range(2)
    ]
    index_live(tmp_path, [], keep_games=2)
    assert sorted(p.name for p in games.iterdir()) == sorted(
        [running.name] + [p.name for p in newer]
    )
    rows = dump(tmp_path / FILE_NAME)
    assert [g[0] for g in rows["games"] if g[-1] == 0] == [closed.name]  # pruned, its row kept
    assert running.name not in [g[0] for g in rows["games"]]
    # Cy was away when it closed: they left it, Bo stayed; the game is rated so, and has no
    # scores, so it is no recent game (server/records/index.py).
    closed_seats = [s for s in rows["seats"] if s[0] == closed.name]
    assert [(s[3], s[4]) for s in closed_seats] == [("Cy", 0), ("Bo", 0)]
    assert closed_seats[0][7] < closed_seats[0][6] and closed_seats[1][7] > closed_seats[1][6]
    db = sqlite3.connect(tmp_path / FILE_NAME)
    from server.records.queries import recent

    assert [r["log"] for r in recent(db)["rows"]] == [p.name for p in reversed(newer)]


def test_a_log_the_host_writes_after_the_records_started_is_left_to_the_host(tmp_path, monkeypatch):
    # The host's own game, started as the records catch up: no end yet and no table file
    # written yet. It is no game closed unfinished (that would prune a running game's log).
    games = tmp_path / "games"
    games.mkdir()
    records = RecordIndex(tmp_path, keep_games=1)
    import server.records as module

    original = module.catch_up

    def catch_up_after_a_game_began(db, games_dir, host_since=None):
        write_finished_log(
            games,
            "20260601-000000-table1-race.kismet",
            "race",
            ["Ana", "Bo"],
            [ANA, BO],
            [0, 0],
            t0=0,
            t_end=10,
            finished=False,
        )
        return original(db, games_dir, host_since)

    monkeypatch.setattr(module, "catch_up", catch_up_after_a_game_began)
    records.start()
    records.close()
    assert (games / "20260601-000000-table1-race.kismet").exists()
    assert dump(tmp_path / FILE_NAME)["games"] == []


def test_bots_have_their_own_figures_a_page_lists_others_and_solo_is_no_win(tmp_path):
    """Two medium bots at one game are one player whose games, wins and best count both
    seats, shown as "Medium bot" (not the last seat's name); a player's page lists the others
    it played with, never the player; a solo game is nobody's win."""
    from kismet_tui.screens.records import columns_and_rows
    from server.records import queries

    games = tmp_path / "games"
    games.mkdir()
    medium = bot_id("medium")
    paths = [
        write_finished_log(
            games,
            "20260101-000000-table1-race.kismet",
            "race",
            ["Ana", "Bot 1 (medium)", "Bot 2 (medium)"],
            [ANA, medium, medium],
            [3, 9, 5],
            t0=0,
            t_end=5_000,
            table=1,
        ),
        write_finished_log(
            games,
            "20260102-000000-table2-race.kismet",
            "race",
            ["Ana", "Bot 2 (medium)", "Bot 3 (medium)"],
            [ANA, medium, medium],
            [8, 2, 4],
            t0=10_000,
            t_end=15_000,
            table=2,
        ),
        write_finished_log(
            games,
            "20260103-000000-table3-dice.kismet",
            "dice",
            ["Ana"],
            [ANA],
            [250],
            t0=20_000,
            t_end=25_000,
            table=3,
        ),
    ]
    index_live(tmp_path, paths)
    db = sqlite3.connect(tmp_path / FILE_NAME)
    games_, wins, best, total = db.execute(
        "SELECT games, wins, best, total FROM standings WHERE player_id = ? AND ruleset = 'race'",
        (medium,),
    ).fetchone()
    assert (games_, wins, best, total) == (4, 1, 9, 20)
    assert db.execute(
        "SELECT games, wins FROM standings WHERE player_id = ? AND ruleset = 'dice'", (ANA,)
    ).fetchone() == (1, 0), "a solo game is no win"
    page = queries.player(db, medium)
    assert page["name"] == "Medium bot"
    db.execute("UPDATE standings SET rated = 99")  # (listed on the leaderboard)
    board = queries.leaderboard(db, "race")
    assert {row["name"] for row in board["rows"]} == {"Ana", "Medium bot"}
    mine = queries.player(db, ANA)
    _, rows = columns_and_rows("player", {**mine, "rows": mine["rows"]})
    with_column = [row[-1] for row in rows]
    assert with_column[0] == "alone" and "won" not in rows[0][3]
    assert all("Ana" not in words for words in with_column), with_column
    assert "Bot 2 (medium), Bot 3 (medium)" in with_column[1]
    db.close()
