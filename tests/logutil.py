"""Helpers of the tests of game logs and fair chance: writing and reading logs, playing a
solo game, the predictor's streams (shared by tests/test_fair_*.py and the log tests)."""

from __future__ import annotations

import asyncio
import time

from kismet_tui.bots.runner import BotLoop
from kismet_tui.rules.rng import SeededRNG
from protocol import limits
from protocol.framing import FROM_HOST, encode, read_frame
from server.chance import GameSecret
from tests.netutil import FAST, connected, running_host, wait_until
from tests.verifyutil import events_of, write


async def play_solo_dice(tmp_path):
    """A whole solo dice game over a real host; returns the client and its log file."""
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table("dice")
            await ana.start()
            await wait_until(lambda: ana.game is not None)
            while not ana.game.finished:
                if ana.game.rolls < 2:
                    await ana.act({"type": "roll", "hold": []})
                else:
                    await ana.act({"type": "score", "box": ana.game.best_box()})
            await wait_until(lambda: ana.verification is not None)
            verification = ana.verification
    [path] = (tmp_path / "games").glob("*.kismet")
    return verification, path


def fields(value, out):
    """Every bytes and str inside a decoded message, nested anywhere."""
    if isinstance(value, dict):
        for key, item in value.items():
            fields(key, out)
            fields(item, out)
    elif isinstance(value, list):
        for item in value:
            fields(item, out)
    elif isinstance(value, (bytes, str)) and value:
        out.add(value)


def seeds_from(value) -> list[bytes]:
    """The ways a field could be a seed: its bytes, its text as UTF-8, its text as hex."""
    raw = value if isinstance(value, bytes) else value.encode("utf-8")
    found = [raw]
    if isinstance(value, str):
        try:
            found.append(bytes.fromhex(value))
        except ValueError:
            pass
    return [seed for seed in found if 1 <= len(seed) <= 64]


class Stream:
    """A candidate seed's dice, drawn lazily: value n of the stream is the n-th die."""

    def __init__(self, seed: bytes):
        self.rng, self.dice = SeededRNG(seed), []

    def faces(self, start: int, count: int = 5) -> list[int]:
        while len(self.dice) < start + count:
            self.dice.append(self.rng.die())
        return self.dice[start : start + count]


class Recorder:
    """A client by hand: every message received is kept, in order."""

    def __init__(self, reader, writer):
        self.reader, self.writer, self.received, self.next_id = reader, writer, [], 1
        # The host's token bucket for this connection, as the client can know it (the same
        # limits; the host reads its clock a moment later, which only gives it more).
        self.tokens, self.refilled = float(limits.RATE_BURST), time.monotonic()

    async def within_rate(self) -> None:
        """Wait until the host's bucket holds a message for us (at once, in a burst or when
        the test lifted the rate), keeping one in hand."""
        while True:
            now = time.monotonic()
            self.tokens = min(
                limits.RATE_BURST, self.tokens + (now - self.refilled) * limits.RATE_PER_SECOND
            )
            self.refilled = now
            if self.tokens >= 2:
                self.tokens -= 1
                return
            await asyncio.sleep((2 - self.tokens) / limits.RATE_PER_SECOND)

    async def request(self, message: dict) -> list[dict]:
        got = []
        while True:
            await self.within_rate()  # keep within the host's rate
            rid, self.next_id = self.next_id, self.next_id + 1
            self.writer.write(encode({**message, "id": rid}, limits.MAX_FRAME))
            while True:
                reply = await asyncio.wait_for(read_frame(self.reader, FROM_HOST), 10)
                self.received.append(reply)
                got.append(reply)
                if reply.get("re") == rid and reply["type"] in ("ok", "event", "error", "welcome"):
                    break
            if reply["type"] == "error" and reply["code"] == "slow_down":
                await asyncio.sleep(1.0)
                continue
            assert reply["type"] != "error", reply
            return got


async def at_a_dice_table(host) -> Recorder:
    """A recording client by hand, said hello, at a new solo dice table of its own."""
    reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
    me = Recorder(reader, writer)
    await me.request({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": "Eve"})
    await me.request({"type": "create_table", "ruleset": "dice", "options": {}})
    return me


async def play_a_game(
    port: int, ruleset: str = "race", bots: tuple[str, ...] = ("greedy", "greedy")
) -> None:
    """A whole game at the host: Ana (a bot loop on her client) and `bots`."""
    async with connected(port, "Ana") as ana:
        table = await ana.create_table(ruleset, FAST[ruleset], bots=list(bots))
        await wait_until(lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:]))
        await ana.start()
        player = asyncio.create_task(BotLoop(ana, "greedy", 0.01, rematches=False).run())
        await wait_until(
            lambda: (
                ana.table is not None
                and ana.table["id"] == table["id"]
                and ana.table["state"] == "finished"
            ),
            timeout=90,
        )
        player.cancel()


def older_log(recs, path):
    """What a host before signing (protocol version 2) wrote for these moves: no `version`
    or key in the header, the seed's version-2 commit and values, no digest, marks or
    signature."""
    from kismet_tui.rules import IllegalAction, game_from_header

    header = {k: v for k, v in recs[0]["header"].items() if k not in ("version", "players")}
    events = [{k: r[k] for k in r if k not in ("kind", "chance")} for r in events_of(recs)]
    for _attempt in range(64):
        secret = GameSecret(version=2)
        stream = secret.stream(header["entropy"])
        header["commit"] = secret.commit
        game = game_from_header(header, rng=stream)
        header["chance"] = stream.take_drawn()
        try:
            for event in events:
                game.apply(event["seat"], event["action"], event["t"])
                event.pop("chance", None)
                if drawn := stream.take_drawn():
                    event["chance"] = drawn
        except IllegalAction:
            continue
        break
    else:
        raise AssertionError("no seed replays these moves")
    end = {"kind": "end", "result": game.result(), "server_seed": secret.server_seed}
    return write(
        path,
        [
            {"kind": "header", "header": header, "table": recs[0]["table"]},
            *({"kind": "event", **event} for event in events),
            end,
        ],
    )
