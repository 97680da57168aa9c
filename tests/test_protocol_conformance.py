"""The wire contract, played against a real host: every row of docs/protocol.md's "Every
request and every code, by example" is sent as it stands, over TCP on 127.0.0.1, and the
answer's types, codes, kinds, `re` and order are checked against the row, and each error's
kind against the doc's table of codes. Both tables are parsed from the doc, so a change to
either (or to the host) that makes them disagree fails here; the last tests show that.

One in-process host serves the module (each row uses players of its own, with unique names).
The rows whose code only comes about when something goes wrong on the host's side get a host
of their own, set up as follows (each named in SETUPS below):

- `full`: a host that takes one connection (`max_connections=1`); a second one is refused.
- `idle`: the host's silence limit (protocol.limits.IDLE_TIMEOUT_S) lowered to 0.3 s.
- `shutdown`: the host is stopped while Ana is connected.
- `internal`: the host's `ping` handler replaced by one that raises.
- `no_records`: the records' query replaced by one that raises sqlite3.DatabaseError, as a
  damaged database does.
- `cannot_save`, `cannot_start`: the host's disk refuses every write (tests/diskfaults.py).
- `game_ending`: the flush of a solo game's end record held until the row is played.
- `slow_down`, `chat_limit`: the records' and the chat's refill rates set to none, so the
  budget a row spent does not come back on a slow machine before the next request.
- `too_quick`: the request is written to the socket just before the host writes the throw
  (as tests/test_reaction_floor.py does), so the host reads it right after.

WHERE THE `replies` BRANCH DECIDES: see REPLIES_DEPENDENT below (one place).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio

import server.host as server_host
from protocol import encode, limits
from protocol.errors import ERRORS
from protocol.framing import FROM_HOST, read_frame
from protocol.requests import REQUESTS
from server import records_request
from server.reaction import shows_a_throw
from server.records import queries
from server.store import Disk
from tests.diskfaults import FaultyDisk
from tests.netutil import running_host, wait_until

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
SECTION = "### Every request and every code, by example"
RID = 1  # the `id` every row's request carries
SYNC = 2**31 - 1  # the `id` of the ping that tells all before it has arrived
ENGINE_KINDS = ("illegal_now", "not_yet", "not_yours")  # `illegal`'s kinds: the engine's own

ASYNC = pytest.mark.asyncio(loop_scope="module")
pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]

# Rows whose outcome the `replies` branch (issue 29, points 2, 3 and 6) decides, while the
# host does not yet answer them as the doc says: each a strict xfail (row key -> why), so
# that once the host does, the mark fails and the row is taken out of this set. Empty since
# that branch was merged (up to 1145f9d): errors carry their kinds (no_records, the copies of
# cannot_start), a move the disk refused is refused for good (the `cannot_save` row), and
# start answers `ok` after `table` and `game` when it waits for a bot (the bot row). Points 5
# (a token outliving its table) and 11 (spectator-only tables) have no row here.
REPLIES_DEPENDENT: dict[str, str] = {}


# ---- the doc's tables, parsed ------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One message of an answer: its type, an error's code and kind, its `re` mark ("re",
    "re nil" or ""), its words when the row gives them; or the connection `closed`."""

    type: str
    code: str | None = None
    kind: str | None = None
    re: str = ""
    words: str | None = None
    many: bool = False  # `table`+: one or more in a row (pushes while the host waits)


CLOSED = Item("closed")
ITEM = r'(?:closed|`\w+`\+?(?: `\w+`)?(?: \[\w+\])?(?: re nil| re)?(?: "[^"]*")?)'
PARTS = re.compile(rf"(?:(\w+): )?({ITEM}(?:, {ITEM})*)")


@dataclass(frozen=True)
class Row:
    where: str
    sends: str  # "-", "body HEX", "frame HEX" or JSON
    answers: tuple[tuple[str, tuple[Item, ...]], ...]  # (who, items); "Ana" is the sender

    @property
    def key(self) -> str:
        return f"{self.where} | {self.sends}"

    def codes(self) -> list[tuple[str, str | None]]:
        return [(i.code, i.kind) for _, items in self.answers for i in items if i.type == "error"]


def parse_item(text: str) -> Item:
    if text == "closed":
        return CLOSED
    found = re.fullmatch(
        r'`(\w+)`(\+?)(?: `(\w+)`)?(?: \[(\w+)\])?(?: (re nil|re))?(?: "([^"]*)")?', text
    )
    assert found, f"cannot read {text!r}"
    kind, many, code, refusal, mark, words = found.groups()
    return Item(kind, code, refusal, mark or "", words, many == "+")


def code_table(doc: str) -> dict[str, str]:
    """The "Error codes" table: code -> kind ("the engine's kind" for `illegal`)."""
    return dict(re.findall(r"^\| `(\w+)` \[([\w' ]+)\] \|", doc, re.M))


def example_rows(doc: str) -> list[Row]:
    body = doc.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in body.splitlines():
        if not line.startswith("| ") or line.startswith(("| where", "|---")):
            continue
        where, sends, answer = (cell.strip() for cell in line.strip()[1:-1].split(" | "))
        assert sends.startswith("`") and sends.endswith("`"), line
        answers = []
        for part in answer.split("; "):
            found = PARTS.fullmatch(part)
            assert found, f"cannot read the answer {part!r} of: {line}"
            items = re.findall(ITEM, found.group(2))
            answers.append((found.group(1) or "Ana", tuple(parse_item(i) for i in items)))
        rows.append(Row(where, sends[1:-1], tuple(answers)))
    return rows


def requests_of_the_doc(doc: str) -> set[str]:
    """The request types of "Messages from client to host"."""
    table = doc.split("## Messages from client to host", 1)[1].split("Rules the host applies", 1)[0]
    return set(re.findall(r"^\| `(\w+)` \|", table, re.M))


def check_kinds(rows: list[Row], codes: dict[str, str]) -> None:
    """Each error of each row has a code of the codes table, with the kind that table gives."""
    for row in rows:
        for code, kind in row.codes():
            assert code in codes, f"{row.key}: `{code}` is no code of the codes table"
            if code == "illegal":
                assert kind in ENGINE_KINDS, f"{row.key}: `illegal` with kind {kind}"
            else:
                assert kind == codes[code], (
                    f"{row.key}: `{code}` is [{kind}] here, [{codes[code]}] in the codes table"
                )


DOC_TEXT = DOC.read_text(encoding="utf-8")
ROWS = example_rows(DOC_TEXT)


# ---- a bare connection ---------------------------------------------------------------------


class Peer:
    """A client that writes exactly what a row says and reads every message the host sends."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.token: str | None = None
        self.ids = itertools.count(100)

    @classmethod
    async def open(cls, port: int) -> Peer:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    def write(self, data: bytes) -> None:
        self.writer.write(data)

    def send(self, message: dict) -> None:
        self.write(encode(message))

    async def recv(self, timeout: float = 15.0) -> dict | None:
        """The next message, or None when the host closed the connection."""
        try:
            return await asyncio.wait_for(read_frame(self.reader, FROM_HOST), timeout)
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    async def ask(self, message: dict) -> list[dict]:
        """Send with a fresh id; everything up to its answer, which must be no error."""
        rid = next(self.ids)
        self.send({**message, "id": rid})
        got = []
        while True:
            reply = await self.recv()
            assert reply is not None, f"closed while asking {message}: {got}"
            got.append(reply)
            if reply.get("re") == rid:
                assert reply["type"] != "error", f"set-up refused: {message} -> {reply}"
                return got

    async def hello(self, name: str, token: str | None = None) -> dict:
        welcome = (
            await self.ask(
                {"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name, "token": token}
            )
        )[-1]
        self.token = welcome["token"]
        return welcome

    async def sync(self) -> list[dict]:
        """What the host sent before the answer to a ping sent now (so: all it has sent)."""
        self.send({"type": "ping", "id": SYNC})
        got = []
        while True:
            reply = await self.recv()
            assert reply is not None, f"closed while syncing: {got}"
            if reply.get("re") == SYNC:  # its pong (or, from a broken ping, its error)
                return got
            got.append(reply)

    def close(self) -> None:
        self.writer.close()


# ---- where a row's client is ---------------------------------------------------------------


@dataclass
class Scene:
    sender: Peer | None
    others: dict[str, Peer] = field(default_factory=dict)
    values: dict[str, object] = field(default_factory=dict)  # "$table", "$digest"
    trigger: Callable[[Scene], Awaitable[None]] | None = None  # for a row that sends `-`
    send: Callable[[bytes], Awaitable[None]] | None = None  # written at a moment of its own


class Env:
    """The module's shared host, and what a set-up needs to make hosts and players."""

    def __init__(self, host, tmp_path_factory) -> None:
        self.host = host
        self.tmp = tmp_path_factory
        self.numbers = itertools.count(1)
        self.row = ROWS[0]  # the row being played: some set-ups serve several

    def name(self, first: str) -> str:
        return f"{first}{next(self.numbers)}"


SETUPS: dict[str, Callable[[Env], contextlib.AbstractAsyncContextManager[Scene]]] = {}


def where(*phrases: str):
    def register(setup):
        made = contextlib.asynccontextmanager(setup)
        for phrase in phrases:
            SETUPS[phrase] = made
        return made

    return register


@contextlib.contextmanager
def patched(owner: object, name: str, value: object):
    before = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


class Players:
    """The peers a scene opened, closed with it."""

    def __init__(self, env: Env, host) -> None:
        self.env, self.host, self.peers = env, host, []

    async def new(self, first: str, hello: bool = True) -> Peer:
        peer = await Peer.open(self.host.port)
        self.peers.append(peer)
        if hello:
            await peer.hello(self.env.name(first))
        return peer

    async def settle(self) -> None:
        for peer in self.peers:
            await peer.sync()

    def close(self) -> None:
        for peer in self.peers:
            peer.close()


@contextlib.asynccontextmanager
async def players(env: Env, host=None) -> AsyncIterator[Players]:
    made = Players(env, host or env.host)
    try:
        yield made
    finally:
        made.close()


async def table_of(
    owner: Peer, ruleset: str = "dice", options: dict | None = None, bots: int = 0
) -> int:
    got = await owner.ask(
        {"type": "create_table", "ruleset": ruleset, "options": options, "bots": bots}
    )
    return next(m for m in got if m["type"] == "table")["table"]["id"]


async def game_of(made: Players, ruleset: str = "dice", options: dict | None = None):
    """Two players (the creator owns the table) with a game running: (owner, other, table)."""
    owner, other = await made.new("Ana"), await made.new("Bo")
    table = await table_of(owner, ruleset, options)
    await other.ask({"type": "join_table", "table": table})
    await other.ask({"type": "ready"})
    await owner.ask({"type": "start"})
    await made.settle()
    return owner, other, table


@where("before hello")
async def before_hello(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        yield Scene(await made.new("Ana", hello=False))


@where("in the lobby", "in the lobby of a host that runs no bots")
async def in_the_lobby(env: Env) -> AsyncIterator[Scene]:
    assert not env.host.can_run_bots()  # the shared host is made without bots
    async with players(env) as made:
        yield Scene(await made.new("Ana"))


@where("connecting to a host whose connections are all taken")
async def host_full(env: Env) -> AsyncIterator[Scene]:
    async with running_host(env.tmp.mktemp("full"), max_connections=1) as host:
        async with players(env, host) as made:
            await made.new("Cy")  # the one connection it takes

            async def connect(scene: Scene) -> None:
                scene.sender = await made.new("Ana", hello=False)

            yield Scene(None, trigger=connect)


@where("in the lobby, having just asked for 8 pages of the records")
async def records_spent(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana = await made.new("Ana")
        with patched(records_request, "PER_SECOND", 0.0):  # nothing comes back meanwhile
            for _ in range(records_request.BURST):
                await ana.ask({"type": "records", "view": "recent"})
            yield Scene(ana)


@where("in the lobby, silent past the host's limit")
async def silent(env: Env) -> AsyncIterator[Scene]:
    async with running_host(env.tmp.mktemp("idle")) as host:
        async with players(env, host) as made:
            ana = await made.new("Ana")

            async def keep_silent(scene: Scene) -> None:
                # Lowered only now, once Ana's hello is answered (the host's sweep reads it
                # every second); `patched` below puts the real limit back after the row.
                limits.IDLE_TIMEOUT_S = 0.3

            with patched(limits, "IDLE_TIMEOUT_S", limits.IDLE_TIMEOUT_S):
                yield Scene(ana, trigger=keep_silent)


@where("in the lobby, its token given in another connection's hello")
async def replaced(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana = await made.new("Ana")

        async def again(scene: Scene) -> None:
            newer = await made.new("Ana", hello=False)
            await newer.hello("Ana again", token=ana.token)

        yield Scene(ana, trigger=again)


@where("in the lobby of a host that shuts down")
async def shutting_down(env: Env) -> AsyncIterator[Scene]:
    async with running_host(env.tmp.mktemp("stop")) as host:
        async with players(env, host) as made:
            stopping: set[asyncio.Task[None]] = set()  # (kept: the loop may not collect it)

            async def stop(scene: Scene) -> None:
                stopping.add(asyncio.ensure_future(host.stop()))

            yield Scene(await made.new("Ana"), trigger=stop)
            await asyncio.gather(*stopping)


@where("in the lobby of a host whose ping fails inside")
async def broken_handler(env: Env) -> AsyncIterator[Scene]:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug in the handler")

    async with running_host(env.tmp.mktemp("internal")) as host:
        async with players(env, host) as made:
            ana = await made.new("Ana")
            with patched(server_host, "HANDLERS", {**server_host.HANDLERS, "ping": broken}):
                yield Scene(ana)


@where("in the lobby of a host whose records cannot be read")
async def records_damaged(env: Env) -> AsyncIterator[Scene]:
    def damaged(*args: object) -> dict:
        raise sqlite3.DatabaseError("database disk image is malformed")

    async with running_host(env.tmp.mktemp("records")) as host:
        async with players(env, host) as made:
            with patched(queries, "answer", damaged):
                yield Scene(await made.new("Ana"))


@where("in the lobby, Bo's dice table open", "in the lobby, Bo's dice table full")
async def bos_table(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana, bo = await made.new("Ana"), await made.new("Bo")
        table = await table_of(bo)
        scene = Scene(ana, {"Bo": bo}, {"$table": table})
        if env.row.where.endswith("full"):
            for _ in range(env.host.tables[table].max_seats() - 1):
                await (await made.new("Cy")).ask({"type": "join_table", "table": table})
        await made.settle()
        yield scene


@where("in the lobby, Bo's dice game running")
async def bos_game(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        bo, _, table = await game_of(made)
        yield Scene(await made.new("Ana"), {"Bo": bo}, {"$table": table})


@where("owning a dice table alone")
async def own_table(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana = await made.new("Ana")
        await table_of(ana)
        yield Scene(ana)


@where("owning a dice table alone, having said 5 lines just now")
async def chat_spent(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana = await made.new("Ana")
        await table_of(ana)
        with patched(limits, "CHAT_EVERY_S", 3600.0):  # nothing comes back meanwhile
            for n in range(limits.CHAT_BURST):
                await ana.ask({"type": "chat", "text": f"line {n}"})
            yield Scene(ana)


@where("seated at Bo's dice table")
async def at_bos_table(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana, bo = await made.new("Ana"), await made.new("Bo")
        table = await table_of(bo)
        await ana.ask({"type": "join_table", "table": table})
        await made.settle()
        yield Scene(ana, {"Bo": bo}, {"$table": table})


@where("owning a dice table, Bo seated, not ready", "owning a dice table, Bo seated and ready")
async def with_bo(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana, bo = await made.new("Ana"), await made.new("Bo")
        table = await table_of(ana)
        await bo.ask({"type": "join_table", "table": table})
        if env.row.where.endswith("and ready"):
            await bo.ask({"type": "ready"})
        await made.settle()
        yield Scene(ana, {"Bo": bo}, {"$table": table})


@where("owning a dice table with a bot it has just asked for")
async def with_a_bot(env: Env) -> AsyncIterator[Scene]:
    from kismet_tui.bots.runner import bot_factory

    async with running_host(env.tmp.mktemp("bots"), bot_factory=bot_factory(), max_bots=2) as host:
        async with players(env, host) as made:
            ana = await made.new("Ana")
            # No settling: the row's start goes out before the bot can have said it is ready.
            table = await table_of(ana, "dice", None, bots=1)
            yield Scene(ana, {}, {"$table": table})


@where("owning a dice table, Bo ready, the host's disk full")
async def start_on_full_disk(env: Env) -> AsyncIterator[Scene]:
    disk = FaultyDisk()
    async with running_host(env.tmp.mktemp("nostart"), disk=disk) as host:
        async with players(env, host) as made:
            ana, bo = await made.new("Ana"), await made.new("Bo")
            table = await table_of(ana)
            await bo.ask({"type": "join_table", "table": table})
            await bo.ask({"type": "ready"})
            await made.settle()
            disk.fail("ENOSPC")
            try:
                yield Scene(ana, {"Bo": bo}, {"$table": table})
            finally:
                disk.heal()  # so the host stops as usual, the row passed or not


@where("watching Bo's dice table, the watchers muted")
async def muted(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana, bo = await made.new("Ana"), await made.new("Bo")
        table = await table_of(bo)
        await bo.ask({"type": "mute_watchers"})
        await ana.ask({"type": "join_table", "table": table, "spectator": True})
        await made.settle()
        yield Scene(ana, {"Bo": bo}, {"$table": table})


@where("watching Bo's dice game")
async def watching(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        bo, _, table = await game_of(made)
        ana = await made.new("Ana")
        await ana.ask({"type": "join_table", "table": table, "spectator": True})
        await made.settle()
        yield Scene(ana, {"Bo": bo}, {"$table": table})


@where(
    "seated in a dice game with Bo, its turn",
    "seated in a dice game with Bo, not its turn",
    "owning a dice game with Bo",
)
async def in_a_dice_game(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        owner, other, table = await game_of(made)
        game = env.host.tables[table].running
        mover = [owner, other][game.current]
        if env.row.where.startswith("owning"):
            ana, bo = owner, other
            if mover is bo:  # Bo plays a turn: a seat handed over on its turn is played at once
                await bo.ask({"type": "act", "action": {"type": "roll", "hold": []}})
                await bo.ask({"type": "act", "action": {"type": "score", "box": game.best_box()}})
                await made.settle()
        elif env.row.where.endswith("not its turn"):
            ana, bo = next(p for p in (owner, other) if p is not mover), mover
        else:
            ana, bo = mover, next(p for p in (owner, other) if p is not mover)
        yield Scene(ana, {"Bo": bo}, {"$table": table, "$digest": game.digest()})


@where("seated in a dice game with Bo, its turn, the host's disk full")
async def move_on_full_disk(env: Env) -> AsyncIterator[Scene]:
    disk = FaultyDisk()
    async with running_host(env.tmp.mktemp("nosave"), disk=disk) as host:
        async with players(env, host) as made:
            owner, other, table = await game_of(made)
            mover = [owner, other][host.tables[table].running.current]
            disk.fail("ENOSPC")
            try:
                yield Scene(mover, {"Bo": other if mover is owner else owner}, {"$table": table})
            finally:
                disk.heal()


class HeldDisk(Disk):
    """A disk whose next flush, once `armed`, waits for `release` (off the loop: the host
    flushes a game's end on a thread), as a slow disk saving a game's end does."""

    def __init__(self) -> None:
        self.armed = False
        self.holding, self.release = threading.Event(), threading.Event()

    def fsync(self, fd: int) -> None:
        if self.armed:
            self.holding.set()
            assert self.release.wait(60), "the row never let the end's flush go on"
        super().fsync(fd)


@where("in a solo dice game whose end is being saved")
async def end_being_saved(env: Env) -> AsyncIterator[Scene]:
    disk = HeldDisk()
    async with running_host(env.tmp.mktemp("ending"), disk=disk) as host:
        async with players(env, host) as made:
            ana = await made.new("Ana")
            table = await table_of(ana)
            await ana.ask({"type": "start"})
            game = host.tables[table].running
            for turn in range(15):  # a scorecard's 15 boxes: the last score ends the game
                await ana.ask({"type": "act", "action": {"type": "roll", "hold": []}})
                if turn == 14:
                    break
                await ana.ask({"type": "act", "action": {"type": "score", "box": game.best_box()}})
            disk.armed = True
            ana.send({"type": "act", "action": {"type": "score", "box": game.best_box()}})
            await wait_until(disk.holding.is_set)
            try:
                yield Scene(ana, {}, {"$table": table})
            finally:
                disk.release.set()


def race_options(countdown_ms: int) -> dict:
    return {"countdown_ms": countdown_ms, "round_limit_ms": 60000, "reveal_ms": 20}


@where("in a race game with Bo, before the dice")
async def race_before_the_dice(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana, bo, table = await game_of(made, "race", race_options(60000))
        yield Scene(ana, {"Bo": bo}, {"$table": table})


@where("in a race game with Bo, the dice out")
async def race_grabbing(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        for _ in range(5):  # two seats' 22 cards run out after two wipes (rare): play again
            ana, bo, table = await game_of(made, "race", race_options(50))
            hosted = env.host.tables[table]
            await wait_until(lambda: hosted.running.phase in ("grabbing", "over"))
            if hosted.running.phase == "grabbing":
                break
        await made.settle()
        seen = time.monotonic()  # the throw has reached Ana: wait out the reaction floor [D20]
        await wait_until(lambda: time.monotonic() - seen >= limits.REACTION_FLOOR_MS / 1000)
        yield Scene(ana, {"Bo": bo}, {"$table": table})


@where("in a race game with Bo, as the dice are thrown")
async def race_at_the_throw(env: Env) -> AsyncIterator[Scene]:
    async with players(env) as made:
        ana, bo = await made.new("Ana"), await made.new("Bo")
        table = await table_of(ana, "race", race_options(300))
        await bo.ask({"type": "join_table", "table": table})
        await bo.ask({"type": "ready"})
        hosted = env.host.tables[table]
        waiting: list[bytes] = []
        thrown = asyncio.Event()
        original = hosted.publish

        def publish(out):
            # Each throw: the row's request goes out just before the host writes the throw,
            # so the host reads it right after; until the row is ready, both pass the round.
            if shows_a_throw(out.notes) and not thrown.is_set():
                if waiting:
                    ana.write(waiting[0])
                    thrown.set()
                else:
                    asyncio.get_running_loop().call_soon(pass_round)
            return original(out)

        def pass_round() -> None:
            for peer in (ana, bo):
                peer.send({"type": "act", "action": {"type": "pass"}})

        async def at_the_throw(data: bytes) -> None:
            waiting.append(data)
            await asyncio.wait_for(thrown.wait(), 30)

        hosted.publish = publish
        await ana.ask({"type": "start"})
        yield Scene(ana, {"Bo": bo}, {"$table": table}, send=at_the_throw)


# ---- playing a row ---------------------------------------------------------------------------


def payload(sends: str, values: dict[str, object]) -> bytes | None:
    if sends == "-":
        return None
    if sends.startswith("frame "):
        return bytes.fromhex(sends[6:])
    if sends.startswith("body "):
        body = bytes.fromhex(sends[5:])
        return len(body).to_bytes(4, "big") + body

    def filled(value: object) -> object:
        if isinstance(value, str) and value in values:
            return values[value]
        if isinstance(value, dict):
            return {k: filled(v) for k, v in value.items()}
        if isinstance(value, list):
            return [filled(v) for v in value]
        return value

    return encode(filled(json.loads(sends)))


def mark_of(message: dict) -> str:
    if "re" not in message:
        return ""
    return (
        "re nil"
        if message["re"] is None
        else "re"
        if message["re"] == RID
        else f"re {message['re']}"
    )


def as_item(message: dict, expected: Item) -> Item:
    if message["type"] != "error":
        return Item(message["type"], re=mark_of(message), many=expected.many)
    return Item(
        "error",
        message.get("code"),
        message.get("kind"),
        mark_of(message),
        message.get("words") if expected.words is not None else None,
    )


async def answer_of(peer: Peer, items: tuple[Item, ...]) -> tuple[list[dict], bool]:
    """What `peer` got: every message until as many of the row's types came as the row names
    (then all the host had sent by then), or until the host closed it when the row says so."""
    types = {item.type for item in items if item != CLOSED}
    needed = sum(1 for item in items if item != CLOSED)
    closes = CLOSED in items
    got: list[dict] = []
    while closes or sum(1 for m in got if m["type"] in types) < needed:
        try:
            message = await peer.recv()
        except TimeoutError:
            raise AssertionError(f"no more came in 15 s after {got}") from None
        if message is None:
            return got, True
        got.append(message)
        if message.get("re") == RID and not closes:
            break  # the request is answered: what else it brought came before the sync's pong
    return got + await peer.sync(), False


async def play(row: Row, env: Env, codes: dict[str, str]) -> None:
    """Bring the row's client where it says, send what it says, and check every answer."""
    check_kinds([row], codes)
    env.row = row
    async with SETUPS[row.where](env) as scene:
        data = payload(row.sends, scene.values)
        if data is None:
            assert scene.trigger is not None, f"{row.where}: nothing happens"
            await scene.trigger(scene)
        elif scene.send is not None:
            await scene.send(data)
        else:
            scene.sender.write(data)
        for who, items in row.answers:
            peer = scene.sender if who == "Ana" else scene.others[who]
            got, closed = await answer_of(peer, items)
            named = [m for m in got if m["type"] in {i.type for i in items}]
            named = [
                m
                for n, m in enumerate(named)
                if not (  # `type`+: one stands for a run
                    n
                    and m["type"] == named[n - 1]["type"]
                    and any(i.many and i.type == m["type"] and i.re == mark_of(m) for i in items)
                )
            ]
            shown = [as_item(m, i) for m, i in zip(named, items, strict=False)] + [
                Item(m["type"]) for m in named[len(items) :]
            ]
            assert (shown + ([CLOSED] if closed else []),) == (list(items),), (
                f"{row.key}\n{who} got {got}"
            )


# ---- the tests -------------------------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def env(tmp_path_factory):
    async with running_host(tmp_path_factory.mktemp("shared")) as host:
        yield Env(host, tmp_path_factory)


def marked(row: Row):
    why = REPLIES_DEPENDENT.get(row.key)
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(row, id=f"{row.where}|{row.sends[:60]}", marks=marks)


@ASYNC
@pytest.mark.parametrize("row", [marked(row) for row in ROWS])
async def test_the_host_answers_each_row_as_the_doc_says(row, env):
    await play(row, env, code_table(DOC_TEXT))


def test_every_code_and_every_request_is_in_a_row_and_each_kind_is_the_codes_tables():
    codes = code_table(DOC_TEXT)
    assert set(codes) == set(ERRORS)
    check_kinds(ROWS, codes)
    provoked = {code for row in ROWS for code, _ in row.codes()}
    assert set(codes) - provoked == set(), "codes no row brings about"
    sent = {json.loads(row.sends)["type"] for row in ROWS if row.sends.startswith("{")}
    assert requests_of_the_doc(DOC_TEXT) == set(REQUESTS)
    assert set(REQUESTS) - sent == set(), "requests no row sends"
    assert set(SETUPS) >= {row.where for row in ROWS}, "a row's place the suite cannot set up"
    assert set(REPLIES_DEPENDENT) <= {row.key for row in ROWS}


def test_the_bot_levels_of_the_wire_are_the_bots():
    from kismet_tui.bots import POLICIES
    from protocol.requests import BOT_LEVELS

    assert set(BOT_LEVELS) == set(POLICIES)


def test_a_kind_changed_in_the_codes_table_fails_the_suite():
    changed = DOC_TEXT.replace("| `not_at_table` [illegal_now] |", "| `not_at_table` [limit] |")
    assert changed != DOC_TEXT
    with pytest.raises(AssertionError, match="not_at_table"):
        check_kinds(example_rows(changed), code_table(changed))
    removed = DOC_TEXT.replace("| `no_table` [illegal_now] |", "| `no_such_table` [illegal_now] |")
    with pytest.raises(AssertionError):
        check_kinds(example_rows(removed), code_table(removed))


@ASYNC
@pytest.mark.parametrize(
    "old, new",
    [
        ("`error` `not_at_table` [illegal_now] re |", "`error` `no_table` [illegal_now] re |"),
        ("`error` `not_at_table` [illegal_now] re |", "`ok` re |"),
        ("`error` `not_at_table` [illegal_now] re |", "`error` `not_at_table` [illegal_now] |"),
    ],
)
async def test_a_code_changed_in_a_row_fails_the_suite(old, new, env):
    line = '| in the lobby | `{"type": "leave", "id": 1}` | '
    changed = DOC_TEXT.replace(line + old, line + new)
    assert changed != DOC_TEXT
    row = next(
        r for r in example_rows(changed) if r.key == 'in the lobby | {"type": "leave", "id": 1}'
    )
    with pytest.raises(AssertionError, match="leave"):
        await play(row, env, code_table(changed))
