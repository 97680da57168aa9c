"""One person, one seat, one rating (issue 28, attacks 2 and 4), against a real host over TCP:

- two connections sending the same `player_key` are one player: the newer takes the seat
  over (the older is told so in words), never a second seat;
- playing yourself moves no rating (the attack took 1000 to 2150 in 10 games), nor does a
  game against bots only at the random level;
- a player who leaves a rated game for good is ranked last and rated so (abandoning a lost
  game used to cost nothing), and the records say they left;
- a newcomer starts with openskill's uncertainty, and the leaderboard lists only players with
  MIN_RATED_GAMES rated games.
"""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from kismet_tui.bots.runner import BotLoop, bot_factory
from kismet_tui.net import Client
from kismet_tui.net.client import CLOSED, RequestError
from protocol import encode, limits
from protocol.framing import FROM_HOST, read_frame
from protocol.gamelog import record_bytes
from protocol.limits import MIN_RATED_GAMES
from server.records import FILE_NAME
from server.records.proof import bot_id, player_id
from tests.hostutil import keyed, paced, write_log
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]

KEY = "k" * 43
ME = player_id("key " + KEY)


class Raw:
    """A bare protocol-3 peer: frames in, frames out."""

    async def open(self, port: int, name: str, player_key: str | None = None) -> dict:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.seen: list[dict] = []
        hello = {"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name}
        if player_key is not None:
            hello["player_key"] = player_key
        self.send(hello)
        return await self.recv_type("welcome")

    def send(self, message: dict) -> None:
        self.writer.write(encode(message))

    async def recv_type(self, kind: str, timeout: float = 10.0) -> dict:
        while True:
            message = await asyncio.wait_for(read_frame(self.reader, FROM_HOST), timeout)
            self.seen.append(message)
            if message["type"] == kind:
                return message

    async def ask(self, message: dict, re: int) -> dict:
        """Send a request; its answer (`ok` or `error` with the same `re`)."""
        self.send({**message, "id": re})
        while True:
            answer = await asyncio.wait_for(read_frame(self.reader, FROM_HOST), 10)
            self.seen.append(answer)
            if answer.get("re") == re:
                return answer

    async def closed_by_host(self, timeout: float = 10.0) -> bool:
        try:
            while True:
                data = await asyncio.wait_for(self.reader.read(65536), timeout)
                if not data:
                    return True
        except ConnectionError:
            return True

    def close(self) -> None:
        self.writer.close()


def standing(state_dir, player: str, ruleset: str = "dice") -> tuple | None:
    db = sqlite3.connect(state_dir / FILE_NAME)
    try:
        return db.execute(
            "SELECT rating, games, rated FROM standings WHERE player_id = ? AND ruleset = ?",
            (player, ruleset),
        ).fetchone()
    except sqlite3.OperationalError:  # (main had no `rated` column)
        return db.execute(
            "SELECT rating, games, games FROM standings WHERE player_id = ? AND ruleset = ?",
            (player, ruleset),
        ).fetchone()
    finally:
        db.close()


# ---- one proof, one seat --------------------------------------------------------------------


async def test_a_second_connection_with_the_same_player_key_takes_the_seat_over(tmp_path):
    async with running_host(tmp_path) as host:
        first = Raw()
        await first.open(host.port, "Ana", KEY)
        created = await first.ask(
            {"type": "create_table", "ruleset": "dice", "options": {}, "bots": 0}, 1
        )
        assert created["type"] == "ok"
        table_id = next(iter(host.tables))
        second = Raw()
        welcome = await second.open(host.port, "Annie", KEY)
        # The same proof is the same player: the newer connection holds the seat now...
        assert welcome["table"] == table_id
        replaced = await first.recv_type("error")
        assert replaced["code"] == "replaced" and "same player key" in replaced["words"]
        assert await first.closed_by_host()
        # ...and sitting down again is no second seat.
        joined = await second.ask({"type": "join_table", "table": table_id, "spectator": False}, 2)
        assert joined["type"] == "ok"
        assert [seat.name for seat in host.tables[table_id].seats] == ["Annie"]
        # A different key is another player, who may sit down.
        third = Raw()
        await third.open(host.port, "Bo", "b" * 43)
        assert (await third.ask({"type": "join_table", "table": table_id, "spectator": False}, 3))[
            "type"
        ] == "ok"
        assert len(host.tables[table_id].seats) == 2
        # During a game, the same key again takes the running seat over: still two seats.
        assert (await third.ask({"type": "ready", "ready": True}, 4))["type"] == "ok"
        assert (await second.ask({"type": "start"}, 5))["type"] == "ok"
        await wait_until(lambda: host.tables[table_id].state == "playing")
        fourth = Raw()
        assert (await fourth.open(host.port, "Whoever", KEY))["table"] == table_id
        assert (await second.recv_type("error"))["code"] == "replaced"
        assert len(host.tables[table_id].seats) == 2
        assert host.tables[table_id].running_header["players"] == [ME, player_id("key " + "b" * 43)]
        for raw in (first, second, third, fourth):
            raw.close()


# ---- playing yourself ---------------------------------------------------------------------


def farming_box(game) -> str:
    """The farmer's choice: the last seat (whose rating the old host kept) scores its best,
    any other seat its worst."""
    if game.current == game.seats - 1:
        return game.best_box()
    open_boxes = {box: p["points"] for box, p in game.preview().items() if p["legal"]}
    return min(open_boxes, key=lambda box: open_boxes[box])


async def self_play_once(port: int, key: str) -> None:
    """The farming attack: one key on two connections at one table, both seats played to the
    end (on a host that gives one proof one seat, the game is a solo one)."""
    ana = await keyed(port, "Ana", key)
    table = await ana.create_table("dice")
    shadow = await keyed(port, "Shadow", key)
    try:
        await shadow.join_table(table["id"])
        await shadow.ready()
    except RequestError:
        pass
    live = [client for client in (ana, shadow) if client.state != CLOSED]
    owner = ana if ana.state != CLOSED else shadow
    await wait_until(lambda: owner.table is not None)
    await paced(owner)
    await wait_until(lambda: owner.game is not None)
    while not owner.game.finished:
        mover = next(c for c in live if c.seat == owner.game.current)
        before = len(owner.events)
        await paced(mover, {"type": "roll", "hold": []})
        await paced(mover, {"type": "score", "box": farming_box(mover.game)})
        await wait_until(lambda: all(len(c.events) >= before + 2 for c in live))
    await wait_until(lambda: owner.table["state"] == "finished")
    for client in (ana, shadow):
        await client.close()


async def test_playing_yourself_moves_no_rating(tmp_path):
    async with running_host(tmp_path) as host:
        for _ in range(3):
            await self_play_once(host.port, KEY)
        await asyncio.to_thread(host.records.close)  # every game taken in
        found = standing(tmp_path, ME)
        print(f"self-play: rating 1000 -> {found[0] if found else 1000} in 3 games")
        assert found is None or (found[0], found[2]) == (1000, 0)


# ---- bots at the random level --------------------------------------------------------------


async def play_against_bots(
    host, key: str, levels: list[str], options: dict | None = None
) -> Client:
    ana = await keyed(host.port, "Ana", key)
    table = await ana.create_table("dice", options, bots=levels)
    await wait_until(lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:]))
    await ana.start()
    player = asyncio.create_task(BotLoop(ana, "greedy", 0.01, rematches=False).run())
    try:
        await wait_until(lambda: ana.game is not None and ana.game.finished, timeout=90)
    finally:
        player.cancel()
    await wait_until(lambda: ana.table["state"] == "finished")
    del table
    return ana


async def test_a_game_against_random_bots_only_moves_no_rating(tmp_path):
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        ana = await play_against_bots(host, KEY, ["random", "random"])
        await ana.close()
        await asyncio.to_thread(host.records.close)
    found = standing(tmp_path, ME)
    print(f"against two random bots: rating 1000 -> {found[0]}")
    assert (found[0], found[2]) == (1000, 0)
    assert (
        standing(tmp_path, bot_id("random")) is None
        or standing(tmp_path, bot_id("random"))[0] == 1000
    )


# ---- leaving a rated game ---------------------------------------------------------------------


async def test_abandoning_a_rated_game_ranks_you_last(tmp_path):
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        # Played out and lost on purpose (the last box, always crossed out) vs. left mid-way.
        ana = await keyed(host.port, "Ana", KEY)
        await ana.create_table("dice", {"away_limit_ms": 1000}, bots=["greedy"])
        await wait_until(lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:]))
        await ana.start()
        await wait_until(lambda: ana.game is not None)
        await wait_until(lambda: ana.game.current == ana.seat)
        await paced(ana, {"type": "roll", "hold": []})
        await ana.close()  # gone for good: the table closes at its away limit, unfinished
        await wait_until(lambda: not host.tables)
        back = await keyed(host.port, "Ana", KEY)
        page = None

        async def rated() -> bool:
            nonlocal page
            page = await back.records("player")
            return bool(page.get("found")) and bool(page["rows"])

        for _ in range(300):
            if await rated():
                break
            await asyncio.sleep(0.1)
        assert page is not None and page.get("found"), "the abandoned game is in the records"
        row = page["rows"][0]
        print(f"abandoned against a greedy bot: rating change {row['change']}")
        assert row["change"] is not None and row["change"] < 0
        mine = next(seat for seat in row["seats"] if seat["player"] == ME)
        bot = next(seat for seat in row["seats"] if seat["player"] == bot_id("greedy"))
        assert mine["left"] is True and bot["left"] is False
        assert row["finished"] is False
        await back.close()


# ---- leaderboard ---------------------------------------------------------------------------------


async def test_the_leaderboard_lists_only_players_with_enough_rated_games(tmp_path):
    regular, other, newcomer = player_id("key r"), player_id("key o"), player_id("key n")
    (tmp_path / "games").mkdir()
    n = 0
    for _ in range(MIN_RATED_GAMES):
        write_log(tmp_path / "games", n, [regular, other], [200, 100])
        n += 1
    write_log(tmp_path / "games", n, [newcomer, regular], [300, 100])
    n += 1
    # Self-play as the old host let it be played: one key at both seats, ten games.
    for _ in range(10):
        write_log(tmp_path / "games", n, [newcomer, newcomer], [300, 50])
        n += 1
    async with running_host(tmp_path) as host:
        ana = await keyed(host.port, "Ana", KEY)
        await wait_until(lambda: host.records.ready.is_set())
        board = await ana.records("leaderboard", "dice")
        await ana.close()
    names = [row["player"] for row in board["rows"]]
    assert names == [regular, other]  # the newcomer has one rated game: not listed yet
    assert standing(tmp_path, newcomer)[2] == 1, "the ten games against themselves are not rated"
    # A newcomer starts with openskill's uncertainty (mu 25, sigma 25/3), shown as 1000.
    db = sqlite3.connect(tmp_path / FILE_NAME)
    firsts = db.execute(
        "SELECT rating_before FROM seats WHERE player_id = ? AND rating_before IS NOT NULL "
        "ORDER BY game_id LIMIT 1",
        (newcomer,),
    ).fetchall()
    db.close()
    assert firsts == [(1000,)]


def test_a_seat_gone_past_the_away_limit_is_ranked_last_and_a_late_drop_is_not(tmp_path):
    from kismet_tui.screens.end import render_result
    from server.records import RecordIndex

    ana, bo, cy = player_id("key a"), player_id("key b"), player_id("key c")
    games = tmp_path / "games"
    games.mkdir()
    header = {
        "ruleset": "dice",
        "seats": ["Ana", "Bo", "Cy"],
        "options": {"away_limit_ms": 30_000},
        "t0": 0,
        "players": [ana, bo, cy],
    }
    events = [
        {"seq": 1, "t": 1_000, "seat": -1, "action": {"type": "away", "seat": 0}},  # gone for good
        {
            "seq": 2,
            "t": 90_000,
            "seat": -1,
            "action": {"type": "away", "seat": 1},
        },  # a drop at the end
        {"seq": 3, "t": 100_000, "seat": 2, "action": {"type": "score", "box": "kismet"}},
    ]
    result = {"scores": [250, 200, 150], "winners": [0]}  # the host played Ana's turns well
    path = games / "20260101-000000-table1-dice.kismet"
    path.write_bytes(
        record_bytes({"kind": "header", "header": header, "table": 1})
        + b"".join(record_bytes({"kind": "event", **e}) for e in events)
        + record_bytes({"kind": "end", "result": result})
    )
    records = RecordIndex(tmp_path)
    records.start()
    outcomes: list = []
    records.game_ended(path, outcomes.append)
    records.close()
    changes = [o.shown()["change"] for o in outcomes[0]]
    assert changes[0] < 0 < changes[1]  # Ana left: last, below Cy, whatever she scored
    assert changes[2] < changes[1]
    db = sqlite3.connect(tmp_path / FILE_NAME)
    assert db.execute("SELECT left_game FROM seats ORDER BY seat").fetchall() == [(1,), (0,), (0,)]
    db.close()
    # The end box ranks her as the records do, and says why.
    lines = render_result("dice", result, ["Ana", "Bo", "Cy"], 1, left=[0]).plain.splitlines()
    ranked = [line for line in lines if ". " in line]
    assert ["Bo" in ranked[0], "Cy" in ranked[1], "Ana" in ranked[2]] == [True, True, True]
    assert "left the game" in ranked[2] and "★" not in ranked[2]


def test_records_from_an_older_host_are_rebuilt_so_old_farming_counts_no_more(tmp_path):
    from server.records import RecordIndex, connect
    from server.records.schema import MIGRATIONS, SCHEMA_VERSION

    farmer = player_id("key f")
    (tmp_path / "games").mkdir()
    for n in range(10):
        write_log(tmp_path / "games", n, [farmer, farmer], [300, 50])
    # A version-1 file as the old host left it: the farmer at 2150.
    db = connect(tmp_path / FILE_NAME)
    with db:
        for statement in MIGRATIONS[0]:
            db.execute(statement)
        db.execute("INSERT INTO meta (key, value) VALUES ('schema', '1')")
        db.execute("INSERT INTO players VALUES (?, 'Farmer', 0, 0)", (farmer,))
        db.execute(
            "INSERT INTO standings VALUES (?, 'dice', 60, 1, 2150, 10, 10, 300, 3000)", (farmer,)
        )
    db.close()
    records = RecordIndex(tmp_path)
    records.start()
    records.ready.wait(30)
    records.close()
    assert any("older host" in line for line in records.start_words)
    db = sqlite3.connect(tmp_path / FILE_NAME)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(
        SCHEMA_VERSION
    )
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 10
    assert db.execute("SELECT COUNT(*) FROM standings").fetchone()[0] == 0  # nothing of it counts
    db.close()
