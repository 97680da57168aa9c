"""Every reply as docs/protocol.md says, over real TCP to an in-process host (issue 29): a
`kind` on every error to every recipient, a move the disk refused refused for good, the body
limits on every field read or not, a token that outlives its table, `start`'s `ok` after its
`table` and `game`, and a table whose last player left closed even with watchers."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import msgpack
import pytest

from kismet_tui.bots.runner import LoopbackBotFactory
from protocol import limits
from protocol.errors import KINDS
from protocol.framing import FROM_HOST, encode, read_frame
from tests.diskfaults import FaultyDisk
from tests.netutil import ROOT, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(60)]


class Peer:
    """A bare protocol-3 client: frames out, every frame in kept in order."""

    async def open(self, port: int, name: str, token: str | None = None) -> dict:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.seen: list[dict] = []
        self.taken: set[int] = set()  # indices of `seen` that next_of gave already
        self.send(
            {
                "type": "hello",
                "version": limits.PROTOCOL_VERSION,
                "name": name,
                "token": token,
                "id": 0,
            }
        )
        return await self.next_of("welcome")

    def send(self, message: dict) -> None:
        self.writer.write(encode(message))

    def send_body(self, body: bytes) -> None:
        self.writer.write(len(body).to_bytes(4, "big") + body)

    async def recv(self, timeout: float = 20.0) -> dict:
        message = await asyncio.wait_for(read_frame(self.reader, FROM_HOST), timeout)
        self.seen.append(message)
        return message

    async def next_of(self, kind: str, **fields) -> dict:
        """The first message of that kind (and fields) not taken yet, read or still to come."""

        def fits(message: dict) -> bool:
            return message["type"] == kind and all(message.get(k) == v for k, v in fields.items())

        for index, message in enumerate(self.seen):
            if index not in self.taken and fits(message):
                self.taken.add(index)
                return message
        while True:
            message = await self.recv()
            if fits(message):
                self.taken.add(len(self.seen) - 1)
                return message

    async def ask(self, message: dict, re: int) -> dict:
        """Send a request; its reply (the message with its `re`)."""
        self.send({**message, "id": re})
        return await self.reply_to(re)

    async def reply_to(self, re: int) -> dict:
        while True:
            message = await self.recv()
            if message.get("re") == re:
                return message

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


async def peers(host, *names: str) -> list[Peer]:
    out = []
    for name in names:
        peer = Peer()
        await peer.open(host.port, name)
        out.append(peer)
    return out


async def dice_for_two(host, ana: Peer, bo: Peer, options: dict | None = None) -> int:
    """Ana opens a dice table, Bo sits and is ready, Ana starts; the table's id."""
    made = await ana.ask({"type": "create_table", "ruleset": "dice", "options": options}, 1)
    assert made["type"] == "ok", made
    table_id = next(m for m in ana.seen if m["type"] == "table")["table"]["id"]
    assert (await bo.ask({"type": "join_table", "table": table_id}, 1))["type"] == "ok"
    assert (await bo.ask({"type": "ready"}, 2))["type"] == "ok"
    assert (await ana.ask({"type": "start"}, 2))["type"] == "ok"
    for peer in (ana, bo):
        await peer.next_of("game")
    return table_id


def mover_of(host, table_id: int, ana: Peer, bo: Peer) -> tuple[Peer, Peer]:
    game = host.tables[table_id].running
    return (ana, bo) if game.current == 0 else (bo, ana)


def assert_kind(error: dict) -> None:
    assert error["type"] == "error"
    assert error.get("kind") == KINDS[error["code"]], error


# ---- point 2: a kind on every error, to every recipient -----------------------------------


def test_every_error_the_host_sends_is_built_by_the_one_constructor():
    """An error dict written by hand is how `kind` went missing (issue 29): none is left."""
    by_hand = []
    for path in sorted((ROOT / "server").rglob("*.py")) + sorted((ROOT / "protocol").rglob("*.py")):
        if path.name == "errors.py" and path.parent.name == "protocol":
            continue
        text = path.read_text(encoding="utf-8")
        by_hand += [
            f"{path.name}:{text[: m.start()].count(chr(10)) + 1}"
            for m in re.finditer(r"""["']type["']\s*:\s*["']error["']""", text)
        ]
    assert by_hand == []


async def test_cannot_save_carries_its_kind_to_the_mover_and_the_others(tmp_path):
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await peers(host, "Ana", "Bo")
        table_id = await dice_for_two(host, ana, bo)
        mover, other = mover_of(host, table_id, ana, bo)
        disk.fail("ENOSPC")
        refused = await mover.ask({"type": "act", "action": {"type": "roll", "hold": []}}, 10)
        assert refused["code"] == "cannot_save"
        assert_kind(refused)
        told = await other.next_of("error", code="cannot_save")
        assert_kind(told)
        disk.heal()
        await ana.close()
        await bo.close()


async def test_cannot_start_carries_its_kind_to_the_owner_and_the_others(tmp_path):
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await peers(host, "Ana", "Bo")
        await ana.ask({"type": "create_table", "ruleset": "dice"}, 1)
        table_id = next(m for m in ana.seen if m["type"] == "table")["table"]["id"]
        await bo.ask({"type": "join_table", "table": table_id}, 1)
        await bo.ask({"type": "ready"}, 2)
        disk.fail("ENOSPC")
        refused = await ana.ask({"type": "start"}, 2)
        assert refused["code"] == "cannot_start"
        assert_kind(refused)
        assert_kind(await bo.next_of("error", code="cannot_start"))
        await ana.close()
        await bo.close()


async def test_no_records_carries_its_kind(tmp_path, monkeypatch):
    from server.records import queries

    def unreadable(db, request, me):
        raise sqlite3.DatabaseError("file is not a database")

    monkeypatch.setattr(queries, "answer", unreadable)
    async with running_host(tmp_path) as host:
        (ana,) = await peers(host, "Ana")
        answer = await ana.ask({"type": "records", "view": "leaderboard"}, 3)
        assert answer["code"] == "no_records"
        assert_kind(answer)
        await ana.close()


# ---- point 3: a move the disk refused is refused for good ---------------------------------


async def test_a_move_refused_for_the_disk_is_never_played_later(tmp_path):
    """[cannot_save is `unavailable`: "later, maybe"] A client that sends its roll again once
    play goes on throws once, not twice, and nothing reaches anyone in silence meanwhile."""
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await peers(host, "Ana", "Bo")
        table_id = await dice_for_two(host, ana, bo)
        mover, other = mover_of(host, table_id, ana, bo)
        disk.fail("short")
        roll = {"type": "act", "action": {"type": "roll", "hold": []}}
        refused = await mover.ask(roll, 10)
        assert refused["code"] == "cannot_save"
        assert "not played" in refused["words"]
        disk.heal()
        for peer in (mover, other):
            await peer.next_of("notice", code="saving")
        # Play goes on with the move not made: nothing was stamped for it.
        assert not [m for m in mover.seen + other.seen if m["type"] == "event"]
        assert host.tables[table_id].running.rolls == 0
        # The client sends it again: that is the turn's first throw, answered with its `re`.
        thrown = await mover.ask(roll, 11)
        assert thrown["type"] == "event" and thrown["seq"] == 1
        assert host.tables[table_id].running.rolls == 1
        seen = await other.next_of("event")
        assert seen["seq"] == 1 and seen["chance"] == thrown["chance"]
        await ana.close()
        await bo.close()


async def test_a_host_stamp_the_disk_refused_is_held_and_goes_out_once_saved(tmp_path):
    """The host's own stamps (a race's countdown running out) answer nobody's request: they
    are held, not undone, and go out once the disk takes them, with no gap in `seq`."""
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await peers(host, "Ana", "Bo")
        options = {"countdown_ms": 1500, "round_limit_ms": 60000, "reveal_ms": 20}
        made = await ana.ask({"type": "create_table", "ruleset": "race", "options": options}, 1)
        assert made["type"] == "ok"
        table_id = next(m for m in ana.seen if m["type"] == "table")["table"]["id"]
        await bo.ask({"type": "join_table", "table": table_id}, 1)
        await bo.ask({"type": "ready"}, 2)
        # The game's file is written as it starts; the countdown's timeout, 1.5 s later,
        # meets the full disk.
        assert (await ana.ask({"type": "start"}, 2))["type"] == "ok"
        disk.fail("ENOSPC")
        told = await bo.next_of("error", code="cannot_save")
        assert_kind(told)
        assert not [m for m in bo.seen if m["type"] == "event"]
        disk.heal()
        await bo.next_of("notice", code="saving")
        rolled = await bo.next_of("event")
        assert rolled["seq"] == 1 and rolled["action"] == {"type": "timeout"} and rolled["chance"]
        await ana.close()
        await bo.close()


# ---- point 4: the body limits hold for every field, read or not ---------------------------


def _deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


async def test_a_read_text_is_held_to_4096_bytes_too(tmp_path):
    """A chat line is counted in characters (1,200 before cleaning): 1,100 tag characters
    (4 bytes each, and cleaned away) are still over the body's 4,096 bytes."""
    async with running_host(tmp_path) as host:
        (ana,) = await peers(host, "Ana")
        await ana.ask({"type": "create_table", "ruleset": "dice"}, 1)
        answer = await ana.ask({"type": "chat", "text": "\U000e0041" * 1100}, 2)
        assert answer["code"] == "bad_message" and "4096 bytes" in answer["words"], answer
        await ana.close()


@pytest.mark.parametrize(
    "extra, words",
    [
        ({"junk": "x" * (4097)}, "'junk' holds a text longer than 4096 bytes"),
        ({"junk": "é" * 2049}, "'junk' holds a text longer than 4096 bytes"),
        ({"k" * 4097: 1}, "a key longer than 4096 bytes"),
        ({"junk": _deep(8)}, "'junk' is nested too deeply (at most 8 levels"),
        ({"junk": 0.5}, "'junk' holds a fraction"),
        ({"junk": {"a": [1.5]}}, "'junk' holds a fraction"),
        ({"junk": b"\x00" * 16}, "'junk' holds binary data"),
        ({"entropy": b"\x00" * 16}, "'entropy' holds binary data"),  # only ready/start take it
        ({b"junk": 1}, "only text keys, not binary ones"),
        ({"junk": {b"k": 1}}, "'junk' may have only text keys"),
        ({"junk": 2**60}, "'junk' holds a number too large"),
    ],
)
async def test_the_body_limits_hold_for_fields_the_host_does_not_read(tmp_path, extra, words):
    async with running_host(tmp_path) as host:
        (ana,) = await peers(host, "Ana")
        ana.send_body(msgpack.packb({"type": "ping", "id": 7, **extra}, use_bin_type=True))
        answer = await ana.reply_to(7)
        assert answer["code"] == "bad_message" and answer.get("re") == 7, answer
        assert words in answer["words"], answer["words"]
        assert_kind(answer)
        # Just within every limit: a ping like any other.
        within = {"type": "ping", "id": 8, "text": "é" * 2048, "deep": _deep(7), "n": 2**53 - 1}
        ana.send_body(msgpack.packb(within, use_bin_type=True))
        assert (await ana.reply_to(8))["type"] == "pong"
        await ana.close()


# ---- point 5: a rejoin token outlives its table -------------------------------------------


async def test_a_player_whose_table_closed_keeps_id_and_token(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await peers(host, "Ana", "Bo")
        welcome = next(m for m in ana.seen if m["type"] == "welcome")
        table_id = await dice_for_two(host, ana, bo, {"away_limit_ms": 200})
        await ana.close()
        await bo.close()
        await wait_until(lambda: table_id not in host.tables)  # closed: nobody came back
        again = Peer()
        back = await again.open(host.port, "Ana", token=welcome["token"])
        assert back["client_id"] == welcome["client_id"] and back["token"] == welcome["token"]
        assert back["table"] is None
        told = await again.next_of("error", code="no_table")
        assert f"table {table_id} closed" in told["words"]
        await again.close()


# ---- point 6: start answers ok after table and game, also when it waits for a bot ---------


class GatedBots(LoopbackBotFactory):
    """Bots that connect only once the test opens the gate."""

    def __init__(self) -> None:
        super().__init__(speed=0.01)
        self.gate = asyncio.Event()

    def __call__(self, host, table_id, level, token):
        async def later() -> None:
            await self.gate.wait()
            await super(GatedBots, self).__call__(host, table_id, level, token)

        return asyncio.create_task(later())


async def test_a_start_that_waits_for_a_bot_answers_ok_after_table_and_game(tmp_path):
    bots = GatedBots()
    async with running_host(tmp_path, bot_factory=bots) as host:
        (ana,) = await peers(host, "Ana")
        await ana.ask({"type": "create_table", "ruleset": "dice", "bots": 1}, 1)
        table_id = next(m for m in ana.seen if m["type"] == "table")["table"]["id"]
        first = len(ana.seen)
        ana.send({"type": "start", "id": 2})
        await wait_until(lambda: host.tables[table_id].pending_start is not None)
        bots.gate.set()
        while not any(m.get("re") == 2 for m in ana.seen):
            await ana.recv()
        kinds = [m["type"] for m in ana.seen[first:]]
        answer = kinds.index("ok")
        assert "game" in kinds[:answer], kinds
        playing = [m for m in ana.seen[first : first + answer] if m["type"] == "table"]
        assert playing and playing[-1]["table"]["state"] == "playing"
        await ana.close()


# ---- point 11: a table whose last player left closes, watchers told -----------------------


async def closed_table(peer: Peer) -> dict:
    while True:
        message = await peer.next_of("table")
        if message["table"]["state"] == "closed":
            return message


async def test_a_table_left_to_its_watchers_closes_and_says_why(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await peers(host, "Ana", "Bo")
        await ana.ask({"type": "create_table", "ruleset": "dice"}, 1)
        table_id = next(m for m in ana.seen if m["type"] == "table")["table"]["id"]
        await bo.ask({"type": "join_table", "table": table_id, "spectator": True}, 1)
        assert (await ana.ask({"type": "leave"}, 2))["type"] == "ok"
        told = await bo.next_of("notice", code="closed")
        assert told["words"] == f"Table {table_id} closed: its last player left."
        await closed_table(bo)
        assert table_id not in host.tables
        await ana.close()
        await bo.close()


async def test_a_running_game_left_to_its_watchers_closes_after_its_away_limit(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo, cy = await peers(host, "Ana", "Bo", "Cy")
        table_id = await dice_for_two(host, ana, bo, {"away_limit_ms": 200})
        await cy.ask({"type": "join_table", "table": table_id, "spectator": True}, 1)
        await ana.close()
        await bo.close()
        told = await cy.next_of("notice", code="closed")
        assert f"Table {table_id} closed" in told["words"]
        await closed_table(cy)
        assert table_id not in host.tables
        await cy.close()


def test_protocol_md_names_the_closed_notice():
    doc = Path(ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    assert "`closed`: the table closed" in doc
