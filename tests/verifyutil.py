"""Helpers of the verifier's tests (kismet-verify): logs written, forged and checked (shared by
tests/test_verify_log.py and the tests that verify what they play)."""

from __future__ import annotations

import asyncio

from kismet_tui.bots.runner import BotLoop, bot_factory
from kismet_tui.cli import remember_host_key, replay_main
from kismet_tui.rules import IllegalAction, apply_event, game_from_header
from protocol.gamelog import iter_records, record_bytes
from server.chance import GameSecret
from server.identity import HostIdentity
from server.store import GameWriter
from tests.netutil import FAST, connected, running_host, wait_until


async def play(state_dir, ruleset: str, bots: list[str]):
    """A whole game over a real host: Ana (played by a bot loop on her client) and `bots`.
    Returns the log's path and the host's fingerprint. Ana's computer remembers the host's
    key as kismet-join does (kismet_tui/known_hosts.py), so --verify knows it."""
    async with running_host(state_dir, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            remember_host_key(ana, f"127.0.0.1:{host.port}")
            table = await ana.create_table(ruleset, FAST[ruleset], bots=bots)
            await wait_until(
                lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:])
            )
            await ana.start()
            player = asyncio.create_task(BotLoop(ana, "greedy", 0.01, rematches=False).run())
            await wait_until(lambda: host.tables[table["id"]].state == "finished", timeout=60)
            player.cancel()
            fingerprint = host.store.identity.fingerprint
    [path] = (state_dir / "games").glob("*.kismet")
    return path, fingerprint


def records(path):
    with open(path, "rb") as stream:
        return list(iter_records(stream))


def events_of(recs):
    return [r for r in recs if r["kind"] == "event"]


def end_of(recs):
    return next(r for r in recs if r["kind"] == "end")


def write(path, recs):
    path.write_bytes(b"".join(record_bytes(r) for r in recs))
    return path


def run_verify(path, capsys, *extra):
    code = replay_main(["--verify", *extra, str(path)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    lines = [line.removeprefix(f"{path}: ") for line in (out.out + out.err).splitlines()]
    return code, lines


def rounds_of(recs):
    """Each event's race round (the round the engine is in when it applies the event)."""
    header = recs[0]["header"]
    game = game_from_header(header)
    seen = []
    for record in events_of(recs):
        seen.append(game.round)
        apply_event(game, {k: record[k] for k in record if k != "kind"})
    return seen


def a_grab_pair(recs):
    """Two grabs of one round, one after the other, by different seats."""
    evs, rounds = events_of(recs), rounds_of(recs)
    for i in range(len(evs) - 1):
        first, second = evs[i], evs[i + 1]
        if (
            first["action"]["type"] == second["action"]["type"] == "grab"
            and first["seat"] != second["seat"]
            and rounds[i] == rounds[i + 1]
        ):
            return first, second
    raise AssertionError("no round with two grabs by two seats in this game")


def forge(recs, forger: HostIdentity, path):
    """What a forger does: a new seed, its commit in the header, every value redrawn from it,
    the end recomputed, and the whole signed with the forger's own key. (Should a move not
    hold with the new dice, the forger tries another seed.)"""
    header = dict(recs[0]["header"])
    events = [{k: r[k] for k in r if k not in ("kind", "chance")} for r in events_of(recs)]
    for _attempt in range(64):
        secret = GameSecret()  # what the host draws for a game: a seed and its commit
        stream = secret.stream(header["entropy"])
        header["commit"] = secret.commit
        game = game_from_header(header, rng=stream)
        header["chance"] = stream.take_drawn()
        try:
            for event in events:
                game.apply(event["seat"], event["action"], event["t"])
                event.pop("chance", None)
                drawn = stream.take_drawn()
                if drawn:
                    event["chance"] = drawn
        except IllegalAction:
            continue
        break
    else:
        raise AssertionError("no seed replays these moves")
    writer = GameWriter(path, header, recs[0]["table"], events[:-1], identity=forger)
    writer.append(
        events[-1],
        end={"result": game.result(), "digest": game.digest(), "server_seed": secret.server_seed},
    )
    writer.close()
    return path
