"""Helpers of the host's tests over real loopback TCP: raw clients, playing a turn or a game
through, hellos for resuming (shared by the tests/test_server_*.py modules and others)."""

from __future__ import annotations

import asyncio

from kismet_tui.net import Client
from protocol import encode, limits
from protocol.framing import FROM_HOST, read_frame
from protocol.gamelog import record_bytes
from tests.netutil import wait_until


async def keyed(port: int, name: str, key: str | None) -> Client:
    client = Client(reconnect=False)
    client.player_key = key
    await client.connect("127.0.0.1", port, name)
    return client


def write_log(folder, n: int, players: list[str | None], scores: list[int]) -> None:
    names = [f"P{p[:4]}" if p else "Guest" for p in players]
    header = {"ruleset": "dice", "seats": names, "options": {}, "t0": n * 1000, "players": players}
    best = max(scores)
    result = {"scores": scores, "winners": [s for s, score in enumerate(scores) if score == best]}
    (folder / f"20260101-{n:06d}-table1-dice.kismet").write_bytes(
        record_bytes({"kind": "header", "header": header, "table": 1})
        + record_bytes(
            {
                "kind": "event",
                "seq": 1,
                "t": n * 1000 + 500,
                "seat": 0,
                "action": {"type": "roll", "hold": []},
            }
        )
        + record_bytes({"kind": "end", "result": result})
    )


async def keyed_client(port, name, key):
    client = Client(reconnect=False)
    client.player_key = key
    await client.connect("127.0.0.1", port, name)
    return client


async def play_two_player_dice(bo, cy):
    while not bo.game.finished:
        mover = bo if bo.game.current == bo.seat else cy
        before = len(bo.events)
        await paced(mover, {"type": "roll", "hold": []})
        await paced(mover, {"type": "score", "box": mover.game.best_box()})
        await wait_until(lambda: len(bo.events) == len(cy.events) >= before + 2)


class Peer:
    """A raw protocol client that reads everything it is sent in the background."""

    def __init__(self) -> None:
        self.heard: list[dict] = []
        self.next_id = 1
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter
        self.task: asyncio.Task | None = None
        self.client_id: int | None = None

    async def open(self, port: int, name: str) -> Peer:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.send({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name})
        welcome = await asyncio.wait_for(read_frame(self.reader, FROM_HOST), 10)
        assert welcome["type"] == "welcome", welcome
        self.client_id = welcome["client_id"]
        return self

    def listen(self) -> None:
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                self.heard.append(await read_frame(self.reader, FROM_HOST))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass

    def send(self, message: dict) -> None:
        self.writer.write(encode(message))

    def request(self, message: dict) -> int:
        rid = self.next_id
        self.next_id += 1
        self.send({**message, "id": rid})
        return rid

    def answer(self, rid: int) -> dict | None:
        return next((m for m in self.heard if m.get("re") == rid), None)

    async def ask(self, message: dict) -> dict:
        rid = self.request(message)
        await wait_until(lambda: self.answer(rid) is not None)
        answer = self.answer(rid)
        assert answer is not None
        return answer

    def chat_from(self, client_id: int | None) -> list[str]:
        return [m["text"] for m in self.heard if m["type"] == "chat" and m["from"] == client_id]

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()


async def peer(port: int, name: str) -> Peer:
    joined = await Peer().open(port, name)
    joined.listen()
    return joined


class Raw:
    """A bare TCP peer that writes whatever bytes it likes."""

    async def open(self, port):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        return self

    def send(self, message: dict) -> None:
        self.writer.write(encode(message))

    async def hello(self, name="Raw"):
        self.send({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name})
        welcome = await self.recv()
        assert welcome["type"] == "welcome"
        return welcome

    async def recv(self, timeout=5.0) -> dict:
        return await asyncio.wait_for(read_frame(self.reader, FROM_HOST), timeout)

    async def recv_type(self, kind: str, timeout=5.0) -> dict:
        while True:
            message = await self.recv(timeout)
            if message["type"] == kind:
                return message

    async def closed_by_host(self, timeout=5.0) -> bool:
        try:
            while True:
                data = await asyncio.wait_for(self.reader.read(65536), timeout)
                if not data:
                    return True
        except ConnectionError:
            return True

    def close(self):
        self.writer.close()


async def game_on_other_table(host):
    """Two honest players with a dice game running, to check nothing else disturbs them."""
    ana = await _client(host, "Ana")
    bo = await _client(host, "Bo")
    table = await ana.create_table("dice")
    await bo.join_table(table["id"])
    await bo.ready()
    await ana.start()
    await wait_until(lambda: bo.game is not None and ana.game is not None)
    return ana, bo


async def _client(host, name):
    from kismet_tui.net import Client

    client = Client(reconnect=False)
    await client.connect("127.0.0.1", host.port, name)
    return client


async def play_a_turn(ana, bo):
    mover = ana if ana.game.current == ana.seat else bo
    before = len(ana.events)
    await mover.act({"type": "roll", "hold": []})
    await mover.act({"type": "score", "box": mover.game.best_box()})
    await wait_until(lambda: len(ana.events) == len(bo.events) == before + 2)
    assert ana.game.digest() == bo.game.digest()


async def paced(client, action=None):
    """Act (or start, without an action), keeping to the host's pace (40 messages a second):
    a refusal for pace is retried."""
    from kismet_tui.net.client import RequestError

    while True:
        try:
            return await (client.act(action) if action is not None else client.start())
        except RequestError as exc:
            if exc.code != "slow_down":
                raise
            await asyncio.sleep(0.1)  # the bucket refills at 40 a second


async def play_solo_dice(client):
    await paced(client)
    await wait_until(
        lambda: (
            client.game is not None
            and not client.game.finished
            and client.table["state"] == "playing"
        )
    )
    while not client.game.finished:
        await paced(client, {"type": "roll", "hold": []})
        await paced(client, {"type": "score", "box": client.game.best_box()})
    await wait_until(lambda: client.table["state"] == "finished")


async def play_turn(ana, bo):
    mover = ana if ana.game.current == ana.seat else bo
    await mover.act({"type": "roll", "hold": []})
    await mover.act({"type": "score", "box": mover.game.best_box()})


async def two_games(port):
    """Two dice tables with a game running at each; returns [(table id, tokens)], clients closed."""
    made = []
    for names in (("Ana", "Bo"), ("Cy", "Di")):
        a, b = Client(reconnect=False), Client(reconnect=False)
        await a.connect("127.0.0.1", port, names[0])
        await b.connect("127.0.0.1", port, names[1])
        table = await a.create_table("dice", {"away_limit_ms": 60000})
        await b.join_table(table["id"])
        await b.ready()
        await a.start()
        await wait_until(lambda: a.game is not None and b.game is not None)
        mover = a if a.game.current == a.seat else b
        await mover.act({"type": "roll", "hold": []})
        made.append((table["id"], (a.token, b.token)))
        await a.close()
        await b.close()
    return made


async def hello_with(port, token, name="Back"):
    raw = await Raw().open(port)
    raw.send({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name, "token": token})
    welcome = await raw.recv_type("welcome")
    return raw, welcome
