"""Chat cannot hurt a player (issue 28, attack 1), against a real host over real TCP with raw
protocol clients: watchers at a table share one small budget and cannot crowd out a player's
line, each player has a budget of their own, the owner mutes the watchers (others are refused
in words), and a reader that falls behind is skipped chat lines, told how many, never game
events."""

from __future__ import annotations

import asyncio
import socket
import struct
import time

import pytest

from protocol import encode, limits
from tests.hostutil import Peer, peer, play_a_turn
from tests.netutil import connected, running_host, start_together, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def a_table(port: int, owner: str = "Ana", player: str = "Bo", watchers: int = 0):
    """`owner` opens a dice table, `player` sits down, `watchers` watchers join it."""
    ana = await peer(port, owner)
    assert (await ana.ask({"type": "create_table", "ruleset": "dice", "options": {}}))[
        "type"
    ] == "ok"
    table_id = next(m for m in ana.heard if m["type"] == "table")["table"]["id"]
    bo = await peer(port, player)
    assert (await bo.ask({"type": "join_table", "table": table_id}))["type"] == "ok"
    crowd = []
    for n in range(watchers):
        watcher = await peer(port, f"{owner}'s watcher {n}")
        assert (await watcher.ask({"type": "join_table", "table": table_id, "spectator": True}))[
            "type"
        ] == "ok"
        crowd.append(watcher)
    return table_id, ana, bo, crowd


class SlowPeer:
    """A raw client on a slow link: a bare socket that the kernel gives little room, read
    by nobody until `start_reading` makes it a Peer (asyncio's streams would read ahead)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setblocking(False)
        self.port = port

    async def open(self, name: str) -> None:
        loop = asyncio.get_running_loop()
        await loop.sock_connect(self.sock, ("127.0.0.1", self.port))
        self.send({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name})
        (length,) = struct.unpack(">I", await self._exactly(4))
        await self._exactly(length)  # the welcome, and not a byte more

    async def _exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = await asyncio.get_running_loop().sock_recv(self.sock, count - len(data))
            assert chunk, "the host closed the slow reader's connection"
            data += chunk
        return data

    def send(self, message: dict) -> None:
        self.sock.send(encode(message))  # a few bytes: the kernel takes them at once

    async def start_reading(self) -> Peer:
        reading = Peer()
        reading.reader, reading.writer = await asyncio.open_connection(sock=self.sock)
        reading.listen()
        return reading


def answers(who: Peer, rids: list[int]) -> list[dict]:
    found = [who.answer(rid) for rid in rids]
    assert all(a is not None for a in found)
    return [a for a in found if a is not None]


async def test_a_watchers_flood_cannot_crowd_out_a_players_line(tmp_path):
    async with running_host(tmp_path) as host:
        _, ana, bo, crowd = await a_table(host.port, watchers=8)
        began = time.monotonic()
        sent = {
            w: [w.request({"type": "chat", "text": f"spam {n}"}) for n in range(30)] for w in crowd
        }
        await wait_until(lambda: all(w.answer(rids[-1]) is not None for w, rids in sent.items()))
        said = await bo.ask({"type": "chat", "text": "my turn, everyone"})
        assert said["type"] == "ok"
        await wait_until(lambda: "my turn, everyone" in ana.chat_from(bo.client_id))
        # What the players heard of the watchers: the watchers' shared budget, not 240 lines.
        heard = sum(len(ana.chat_from(w.client_id)) for w in crowd)
        refill = int((time.monotonic() - began) / limits.WATCHERS_CHAT_EVERY_S) + 1
        assert heard <= limits.WATCHERS_CHAT_BURST + refill
        refused = [a for w, rids in sent.items() for a in answers(w, rids) if a["type"] == "error"]
        assert len(refused) >= 240 - limits.WATCHERS_CHAT_BURST - refill
        assert {(a["code"], a["kind"]) for a in refused} == {("chat_limit", "limit")}
        assert any("watchers here have said a lot" in a["words"] for a in refused)
        # Ana's own budget is hers alone: the flood took none of it.
        mine = [
            ana.request({"type": "chat", "text": f"hello {n}"}) for n in range(limits.CHAT_BURST)
        ]
        await wait_until(lambda: ana.answer(mine[-1]) is not None)
        assert [a["type"] for a in answers(ana, mine)] == ["ok"] * limits.CHAT_BURST
        for who in (ana, bo, *crowd):
            who.close()


async def test_the_watchers_budget_is_one_per_table_and_each_player_has_their_own(tmp_path):
    async with running_host(tmp_path) as host:
        _, ana, bo, (w1, w2) = await a_table(host.port, watchers=2)
        _, cy, dee, (w3,) = await a_table(host.port, "Cy", "Dee", watchers=1)
        burst = limits.WATCHERS_CHAT_BURST
        first = [w1.request({"type": "chat", "text": f"w1 {n}"}) for n in range(burst)]
        second = [w2.request({"type": "chat", "text": f"w2 {n}"}) for n in range(burst)]
        await wait_until(
            lambda: w1.answer(first[-1]) is not None and w2.answer(second[-1]) is not None
        )
        taken = [a for a in answers(w1, first) + answers(w2, second) if a["type"] == "ok"]
        # The two watchers share one budget: together no more than it (and a line it refilled
        # meanwhile on a slow machine).
        assert burst <= len(taken) <= burst + 1
        refused = [a for a in answers(w2, second) if a["type"] == "error"]
        assert refused and refused[0]["code"] == "chat_limit" and "watchers" in refused[0]["words"]
        # Another table's watchers have a budget of their own.
        assert (await w3.ask({"type": "chat", "text": "hello from table two"}))["type"] == "ok"
        # A player over their own budget is refused in words; the other player is not.
        mine = [
            bo.request({"type": "chat", "text": f"bo {n}"}) for n in range(limits.CHAT_BURST + 3)
        ]
        await wait_until(lambda: bo.answer(mine[-1]) is not None)
        over = [a for a in answers(bo, mine) if a["type"] == "error"]
        assert len(over) >= 1
        assert over[0]["code"] == "chat_limit" and over[0]["words"].startswith("You have said")
        assert (await ana.ask({"type": "chat", "text": "still heard"}))["type"] == "ok"
        await wait_until(lambda: "still heard" in w1.chat_from(ana.client_id))
        for who in (ana, bo, w1, w2, cy, dee, w3):
            who.close()


async def test_the_owner_mutes_the_watchers_and_they_are_told(tmp_path):
    async with running_host(tmp_path) as host:
        _, ana, bo, (watcher,) = await a_table(host.port, watchers=1)
        refused = await bo.ask({"type": "mute_watchers", "muted": True})
        assert (refused["type"], refused["code"], refused["kind"]) == (
            "error",
            "not_owner",
            "not_yours",
        )
        assert "owner" in refused["words"]
        assert (await ana.ask({"type": "mute_watchers", "muted": True}))["type"] == "ok"
        await wait_until(
            lambda: any(
                m["type"] == "notice" and m["code"] == "watchers_muted" for m in watcher.heard
            )
        )
        notice = next(m for m in watcher.heard if m["type"] == "notice")
        assert "turned off the watchers' chat" in notice["words"]
        assert [m for m in watcher.heard if m["type"] == "table"][-1]["table"][
            "watchers_muted"
        ] is True
        muted = await watcher.ask({"type": "chat", "text": "can you hear me"})
        assert (muted["type"], muted["code"], muted["kind"]) == ("error", "chat_muted", "not_yours")
        assert "only the players can talk" in muted["words"]
        # The players still talk, and the watchers still hear them.
        assert (await bo.ask({"type": "chat", "text": "quiet at last"}))["type"] == "ok"
        await wait_until(lambda: "quiet at last" in watcher.chat_from(bo.client_id))
        assert watcher.chat_from(watcher.client_id) == []
        assert (await ana.ask({"type": "mute_watchers", "muted": False}))["type"] == "ok"
        assert (await watcher.ask({"type": "chat", "text": "thanks"}))["type"] == "ok"
        await wait_until(lambda: "thanks" in ana.chat_from(watcher.client_id))
        for who in (ana, bo, watcher):
            who.close()


async def a_slow_watcher(host, ana, bo):
    """Ana and Bo play a game some turns long (its whole log is a few kilobytes), watched on
    a slow link: (the watcher's SlowPeer, which reads nothing for now, and the host's
    connection to it)."""
    table = await start_together(ana, [bo], "dice", {})
    await wait_until(lambda: ana.game is not None and bo.game is not None)
    for _ in range(16):
        await play_a_turn(ana, bo)
    slow = SlowPeer(host.port)  # (the kernel holds little for it)
    await slow.open("Slow")
    slow.send({"type": "join_table", "table": table["id"], "spectator": True})
    conn = next(c for c in host.connections if c.player is not None and c.player.name == "Slow")
    # (The host's side of the link is slow too: a small send buffer, no autotuning.)
    conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    return slow, conn


async def resync_until(slow: SlowPeer, done, words: str) -> None:
    """The slow watcher asks for the whole game again and again (within the rate limit), and
    does not read the answers, until `done()`."""
    deadline = time.monotonic() + 60
    while not done():
        assert time.monotonic() < deadline, words
        for _ in range(12):
            slow.send({"type": "resync"})
        await asyncio.sleep(0.4)


async def test_a_reader_that_falls_behind_is_skipped_chat_never_events(tmp_path):
    async with (
        running_host(tmp_path) as host,
        connected(host, "Ana") as ana,
        connected(host, "Bo") as bo,
    ):
        slow, conn = await a_slow_watcher(host, ana, bo)
        await resync_until(slow, lambda: conn.behind, "the slow reader never fell behind")
        lines = [f"line {n}" for n in range(3)]
        for line in lines:
            await bo.chat(line)
        before = len(ana.events)
        await play_a_turn(ana, bo)
        assert conn.chat_skipped == len(lines)
        # Now it reads: every event came, the chat lines did not, and it is told how many.
        reading = await slow.start_reading()
        await wait_until(lambda: any(m["type"] == "chat_skipped" for m in reading.heard))
        skipped = next(m for m in reading.heard if m["type"] == "chat_skipped")
        assert skipped["count"] == len(lines) and "3 lines of chat were skipped" in skipped["words"]
        assert not any(m["type"] == "chat" for m in reading.heard)
        await wait_until(
            lambda: (
                {before + 1, before + 2}
                <= {m.get("seq") for m in reading.heard if m["type"] == "event"}
            )
        )
        # Caught up, it hears chat again.
        await ana.chat("welcome back")
        await wait_until(lambda: "welcome back" in reading.chat_from(ana.client_id))
        reading.close()


async def test_a_reader_past_the_send_buffer_limit_is_dropped(tmp_path, monkeypatch):
    """Past MAX_SEND_BUFFER waiting for it, a connection that does not read is closed (the
    host looks at the buffer of a connection that has fallen behind, past CHAT_BACKLOG)."""
    monkeypatch.setattr(limits, "MAX_SEND_BUFFER", 2 * limits.CHAT_BACKLOG)
    async with (
        running_host(tmp_path) as host,
        connected(host, "Ana") as ana,
        connected(host, "Bo") as bo,
    ):
        slow, conn = await a_slow_watcher(host, ana, bo)
        await resync_until(slow, lambda: conn.closed, "the reader that never reads was kept")
        assert conn.behind  # (it had fallen behind first)
        # Gone at once, with what it was sent, though it still reads nothing: not held (its
        # buffer and its share of its address's connections) until it reads or is swept.
        await wait_until(lambda: conn not in host.connections)
        assert conn.transport.get_write_buffer_size() == 0
        slow.sock.close()
