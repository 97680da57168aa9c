"""Every records page is one indexed query: the SQL each view runs, caught as SQLite runs it,
is planned by SQLite (EXPLAIN QUERY PLAN) as searches of indexes only, with no scan of a
whole table and no sort of its own (a temporary B-tree). A file of the previous schema is
migrated, and its high scores per player are still found."""

import sqlite3

import pytest

from kismet_tui.rules import GAMES
from server.records import connect, queries
from server.records.index import EndedGame, index_game
from server.records.proof import bot_id, player_id
from server.records.schema import MIGRATIONS, SCHEMA_VERSION, migrate

pytestmark = pytest.mark.timeout(60)

ANA, BO = player_id("key ana"), player_id("key bo")

VIEWS = [
    {"view": "leaderboard", "ruleset": "dice", "player": None, "page": 0},
    {"view": "leaderboard", "ruleset": "race", "player": None, "page": 0},
    {"view": "recent", "ruleset": None, "player": None, "page": 0},
    {"view": "recent", "ruleset": "dice", "player": None, "page": 0},
    {"view": "recent", "ruleset": "race", "player": None, "page": 2},
    {"view": "player", "ruleset": None, "player": ANA, "page": 0},
    {"view": "player", "ruleset": None, "player": bot_id("easy"), "page": 1},
    {"view": "best", "ruleset": "dice", "player": None, "page": 0},
    {"view": "best", "ruleset": "dice", "player": ANA, "page": 0},
    {"view": "best", "ruleset": "dice", "player": bot_id("easy"), "page": 0},
]


def fill(db, games=120):
    for n in range(games):
        ruleset = GAMES[n % len(GAMES)]
        if ruleset == "dice" and n % 2:
            names, players, scores = ["Ana"], [ANA], [150 + n]
        else:
            names, players, scores = (
                ["Ana", "Bo", "Bot 1 (easy)"],
                [ANA, BO, bot_id("easy")],
                [n % 7, 3, 4],
            )
        best = max(scores)
        index_game(
            db,
            EndedGame(
                f"{n:08d}-table1-{ruleset}.kismet",
                ruleset,
                1,
                n * 1000,
                n * 1000 + 500,
                names,
                players,
                scores,
                [s for s, v in enumerate(scores) if v == best],
            ),
        )


def plans_of(db, request):
    """The plan lines of every statement answering `request`."""
    statements = []
    db.set_trace_callback(statements.append)
    try:
        answer = queries.answer(db, request, ANA)
    finally:
        db.set_trace_callback(None)
    # (each view answered something, so its whole SQL ran: a bot plays no solo game)
    assert answer["rows"] or request["view"] == "best", request
    return [
        (sql, [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql)]) for sql in statements
    ]


def test_every_page_is_an_indexed_search_with_no_scan_and_no_sort(tmp_path):
    db = connect(tmp_path / "records.sqlite3")
    migrate(db)
    fill(db)
    for request in VIEWS:
        for sql, plan in plans_of(db, request):
            for line in plan:
                assert line.startswith("SEARCH ") and ("INDEX" in line or "PRIMARY KEY" in line), (
                    f"{request['view']} ({request['ruleset']}, {request['player']}): {line}\n  {sql}"
                )
                assert "TEMP B-TREE" not in line, f"{request['view']}: {line}\n  {sql}"


def test_a_file_of_the_previous_schema_is_migrated_and_keeps_its_solo_players(tmp_path):
    path = tmp_path / "records.sqlite3"
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:  # the file an older host made
        db.execute(statement)
    db.execute("INSERT INTO meta (key, value) VALUES ('schema', '1')")
    db.execute(
        "INSERT INTO games (id, log_file, ruleset, table_id, started_ms, ended_ms, seat_count, "
        "top_score, finished) VALUES (1, 'a.kismet', 'dice', 1, 0, 10, 1, 280, 1)"
    )
    db.execute(
        "INSERT INTO seats (game_id, seat, player_id, name, score, won) VALUES (1, 0, ?, 'Ana', 280, 1)",
        (ANA,),
    )
    db.commit()
    db.close()
    db = connect(path)
    assert migrate(db) == 1 and SCHEMA_VERSION == 3
    best = queries.best(db, "dice", ANA)
    assert [(row["name"], row["score"]) for row in best["rows"]] == [("Ana", 280)]
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {
        "games_recent",
        "games_recent_by_ruleset",
        "games_best",
        "games_best_of_player",
    } <= names
    assert not names & {"games_by_end", "games_by_ruleset", "games_by_top_score"}
