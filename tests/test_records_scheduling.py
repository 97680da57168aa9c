"""The records' worker puts game ends first (server/records/jobs.py): a game's end is written
before every request waiting, and a request running when it arrives is stopped and answered
after it; requests take fair turns among their askers; after a full disk the games waiting
are written as soon as the disk takes them, however often requests come meanwhile. A real
SQLite file in a temporary state folder, real game logs."""

import threading
import time

import pytest

from server.records import FILE_NAME, RecordIndex
from server.records.proof import player_id
from tests.records_util import write_finished_log

pytestmark = pytest.mark.timeout(60)

ANA, BO = player_id("key ana"), player_id("key bo")


def two_player_log(folder, n):
    return write_finished_log(
        folder,
        f"20260601-0000{n:02d}-table{n}-race.kismet",
        "race",
        ["Ana", "Bo"],
        [ANA, BO],
        [5 + n, 3],
        t0=n * 1000,
        t_end=n * 1000 + 500,
        table=n,
    )


def started(tmp_path):
    (tmp_path / "games").mkdir(exist_ok=True)
    records = RecordIndex(tmp_path)
    records.start()
    assert records.ready.wait(10)
    return records


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_games_end_is_written_before_the_requests_waiting(tmp_path):
    records = started(tmp_path)
    order = []
    busy, release = threading.Event(), threading.Event()
    records.ask(lambda db: busy.set() or release.wait(10), lambda _: None)  # the worker is busy
    assert busy.wait(10)
    for n in range(30):  # a flood of requests waits...
        records.ask(
            lambda db, n=n: db.execute("SELECT COUNT(*) FROM games").fetchone()[0] + n,
            lambda answer: order.append("request"),
        )
    records.game_ended(two_player_log(tmp_path / "games", 1), lambda outcomes: order.append("game"))
    release.set()  # ...and a game ended after all of them: it goes first
    records.close()
    assert order[0] == "game" and order.count("request") == 30


def test_a_request_running_when_a_game_ends_is_stopped_and_answered_after_it(tmp_path):
    records = started(tmp_path)
    order, runs = [], []
    running = threading.Event()

    def slow_question(db):
        runs.append(1)
        running.set()
        # Tens of millions of SQLite steps the first time (seconds), a few the second.
        bound = 30_000_000 if len(runs) == 1 else 10
        return db.execute(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
            "WHERE x < ?) SELECT COUNT(*) FROM c",
            (bound,),
        ).fetchone()[0]

    records.ask(slow_question, lambda answer: order.append(("request", answer)))
    assert running.wait(10)
    records.game_ended(
        two_player_log(tmp_path / "games", 1),
        lambda outcomes: order.append(("game", len(outcomes))),
    )
    wait_for(lambda: len(order) == 2)
    records.close()
    assert order == [("game", 2), ("request", 10)] and len(runs) == 2


def test_requests_take_fair_turns_among_their_askers(tmp_path):
    records = started(tmp_path)
    order = []
    busy, release = threading.Event(), threading.Event()
    records.ask(lambda db: busy.set() or release.wait(10), lambda _: None, asker="flooder")
    assert busy.wait(10)
    for n in range(20):
        records.ask(lambda db, n=n: n, lambda n: order.append(f"flood {n}"), asker="flooder")
    records.ask(lambda db: 0, lambda _: order.append("honest"), asker="honest")
    release.set()
    records.close()
    # The honest asker waits for one of the flooder's requests, not for all twenty.
    assert order.index("honest") == 1 and len(order) == 21


def test_after_a_full_disk_the_records_catch_up_while_requests_keep_coming(tmp_path):
    import sqlite3

    records = started(tmp_path)
    pages = sqlite3.connect(tmp_path / FILE_NAME).execute("PRAGMA page_count").fetchone()[0]
    limited = threading.Event()
    records.ask(
        lambda db: db.execute(f"PRAGMA max_page_count = {pages}").fetchall(),
        lambda _: limited.set(),
    )
    assert limited.wait(10)
    done = []
    for n in range(200):  # more than the file's free room holds: the disk is "full"
        records.game_ended(
            write_finished_log(
                tmp_path / "games",
                f"20260701-000000-table{n}-dice.kismet",
                "dice",
                [f"Player {n}"],
                [player_id(f"key {n}")],
                [n],
                t0=n,
                t_end=n + 1,
            ),
            done.append,
        )
    wait_for(lambda: records.paused is not None)
    assert len(done) < 200
    records.ask(lambda db: db.execute("PRAGMA max_page_count = 1000000").fetchall(), lambda _: None)
    # The disk has room again; a player asks for a page every 0.3 s meanwhile (before, each
    # request put the retry off by 5 s: the records never caught up).
    deadline = time.monotonic() + 12
    while len(done) < 200 and time.monotonic() < deadline:
        records.ask(lambda db: 1, lambda _: None)
        time.sleep(0.3)
    caught_up = len(done)
    records.close()
    assert caught_up == 200 and records.paused is None
