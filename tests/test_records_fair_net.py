"""The records under a flood, over real TCP with raw clients (issue 28, attack 7): `records`
requests are limited per player (two connections with one player key share one allowance,
refused in words with `slow_down`, kind `limit`), and a game's ratings are written before
the flood of requests that waits for the records' thread."""

import asyncio
import threading

import pytest

from protocol import encode, limits
from protocol.framing import FROM_HOST, read_frame
from server import Host, records_request
from tests.hostutil import keyed_client, paced, play_two_player_dice
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


class Raw:
    """A bare protocol-3 client: hello, then whatever it sends."""

    async def open(self, port, name, key=None):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.send(
            {"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name, "player_key": key}
        )
        welcome = await self.recv()
        assert welcome["type"] == "welcome"
        return self

    def send(self, message):
        self.writer.write(encode(message))

    async def recv(self, timeout=10.0):
        return await asyncio.wait_for(read_frame(self.reader, FROM_HOST), timeout)

    async def answer(self, re, timeout=10.0):
        while True:
            message = await self.recv(timeout)
            if message.get("re") == re:
                return message

    async def ask(self, re, view="leaderboard", **fields):
        self.send({"type": "records", "id": re, "view": view, **fields})
        return await self.answer(re)

    def close(self):
        self.writer.close()


async def test_records_requests_are_limited_per_player_not_per_connection(tmp_path):
    async with running_host(tmp_path) as host:
        key = "k" * 43
        # One player asking one page at a time (never more than one waiting: the
        # per-connection limit of 4 waiting never comes into it), then connecting again with
        # the same key (one player holds one connection: the newer one takes over) and
        # asking on: the new connection does not bring a new allowance.
        first = await Raw().open(host.port, "Mal", key)
        answers = [await first.ask(n + 1) for n in range(12)]
        assert answers[0]["type"] == "records"
        assert any(a["type"] == "error" for a in answers), "the first connection was never limited"
        second = await Raw().open(host.port, "Mal", key)
        again = [await second.ask(n + 20) for n in range(4)]
        refused = [a for a in answers + again if a["type"] == "error"]
        assert len(refused) >= 6 and again[0]["type"] == "error"
        assert {(a["code"], a["kind"]) for a in refused} == {("slow_down", "limit")}
        assert "You asked for many pages of the records in a short while" in refused[0]["words"]
        # Anyone else is answered at once.
        other = await Raw().open(host.port, "Ana", "a" * 43)
        assert (await other.ask(100))["type"] == "records"
        # And the player again, a moment later.
        for n in range(200, 260):
            if (await second.ask(n))["type"] == "records":
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("never answered again")
        for raw in (first, second, other):
            raw.close()


async def test_a_games_ratings_are_written_before_the_records_flood_waiting(tmp_path, monkeypatch):
    # The order the host hands its answers to the connections, on its loop (the order they are
    # read here, on four sockets and the client's queue, is the test's own scheduling's).
    handed = []
    arrived, answer = Host._outcomes_arrived, records_request._send
    monkeypatch.setattr(
        Host,
        "_outcomes_arrived",
        lambda self, *args: (handed.append("rating"), arrived(self, *args))[1],
    )
    monkeypatch.setattr(
        records_request, "_send", lambda *args: (handed.append("records"), answer(*args))[1]
    )
    async with running_host(tmp_path) as host:
        bo = await keyed_client(host.port, "Bo", "b" * 40)
        cy = await keyed_client(host.port, "Cy", "c" * 40)
        table = await bo.create_table("dice")
        await cy.join_table(table["id"])
        await cy.ready()
        await paced(bo)
        await wait_until(lambda: bo.game is not None and cy.game is not None)
        # The records' thread is busy with a long request...
        busy, release = threading.Event(), threading.Event()
        host.records.ask(lambda db: busy.set() or release.wait(30), lambda _: None)
        assert await asyncio.to_thread(busy.wait, 10)
        # ...while eight connections of one address each have four requests waiting.
        order = []
        flooders = [await Raw().open(host.port, f"Flood {n}") for n in range(8)]
        for raw in flooders:
            for re in range(1, 5):
                raw.send({"type": "records", "id": re, "view": "recent", "ruleset": "dice"})

        async def read_flood(raw):
            for _ in range(4):
                message = await raw.recv(30)
                order.append(message["type"])

        async def read_rating():
            async for message in bo.messages():
                if message["type"] == "table" and all(
                    s.get("outcome") for s in message["table"]["seats"]
                ):
                    order.append("rating")
                    return

        readers = [asyncio.create_task(read_flood(raw)) for raw in flooders]
        rating = asyncio.create_task(read_rating())
        await wait_until(lambda: sum(host.records_asked.waiting.values()) == 32)
        # The game ends behind the 32 requests (its last move's handler hands its end to
        # the records' thread, before any client sees that move).
        await play_two_player_dice(bo, cy)
        release.set()
        await asyncio.wait_for(asyncio.gather(rating, *readers), 60)
        assert order.count("records") == 32 and order.count("rating") == 1
        # The game's ratings came first: no request waiting went before them.
        assert handed.index("rating") == 0 and handed.count("records") == 32, handed
        for raw in flooders:
            raw.close()
        await bo.close()
        await cy.close()
