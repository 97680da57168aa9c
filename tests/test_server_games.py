"""Whole games over real TCP: bots and clients through a host, every replica on the host's
digest; simultaneous grabs; a client killed and rejoining."""

import asyncio

import pytest

from kismet_tui.bots.runner import BotLoop, bot_factory
from kismet_tui.net import ActionRefused, Client, RequestError
from kismet_tui.rules import GAMES
from tests.netutil import (
    FAST,
    connected,
    digests_checked,
    looked_at_the_dice,
    running_host,
    start_together,
    wait_until,
)

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


@pytest.mark.parametrize("ruleset", GAMES)
async def test_a_whole_game_played_by_bots_ends_on_the_hosts_digest(tmp_path, monkeypatch, ruleset):
    checked = digests_checked(monkeypatch)
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana, connected(host, "Watcher") as watcher:
            table = await ana.create_table(
                ruleset, FAST[ruleset], bots=["greedy", "random", "greedy"]
            )
            await watcher.join_table(table["id"], spectator=True)
            await wait_until(
                lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:])
            )
            await ana.start()
            player = asyncio.create_task(BotLoop(ana, "greedy", 0.01, rematches=False).run())
            await wait_until(lambda: ana.game is not None and ana.game.finished, timeout=45)
            await wait_until(lambda: watcher.game is not None and watcher.game.finished)
            player.cancel()
            hosted = host.tables[table["id"]]
            assert hosted.state == "finished"
            assert ana.events == watcher.events == hosted.events
            assert ana.game.digest() == watcher.game.digest() == hosted.game.digest()
            assert ana.game.result() == hosted.game.result()
            # Every replica's digest of the last event (three bots, Ana's, the watcher's) has
            # been compared with the host's, and none differed.
            final = len(hosted.events)
            await wait_until(lambda: len({conn for conn, seq in checked if seq == final}) == 5)
            assert host.desyncs == 0
            # The log on disk replays to the same end.
            from kismet_tui.rules import replay
            from protocol import read_log_full

            files = list((tmp_path / "games").glob("*.kismet"))
            assert len(files) == 1
            header, events, end = read_log_full(files[0])
            assert replay(header, events).digest() == hosted.game.digest()
            assert end["result"] == hosted.game.result()
            # Every game: a player and a spectator both verified the revealed seed, and the
            # saved game verifies too.
            await wait_until(
                lambda: ana.verification is not None and watcher.verification is not None
            )
            assert ana.verification.ok and watcher.verification.ok, ana.verification.words
            from kismet_tui.rules.verify import verify

            assert verify(header, events, end["server_seed"]).ok


async def test_two_clients_grab_one_card_and_both_see_the_same_winner(tmp_path):
    # A long round limit: the round ends when both have acted, never because a busy machine
    # kept the test from acting in time.
    options = {"countdown_ms": 50, "round_limit_ms": 60000, "reveal_ms": 20}
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            table = await start_together(ana, [bo], "race", options)
            hosted = host.tables[table["id"]]

            def in_step() -> bool:
                """Both replicas hold the host's whole log (so they are in the same phase)."""
                return (
                    ana.game is not None
                    and bo.game is not None
                    and len(ana.events) == len(bo.events) == len(hosted.events)
                )

            rounds = 0
            while rounds < 3:
                # A roll may end the game instead of opening a round (two players' small deck:
                # a circle with no target is wiped and the pile cannot refill it), so wait
                # for a round to grab in or for the end.
                await wait_until(
                    lambda: hosted.game.finished or (in_step() and hosted.game.phase == "grabbing"),
                    timeout=30,
                )
                if hosted.game.finished:
                    break
                rounds += 1
                seen = len(hosted.events)
                view = ana.game.view(ana.seat)
                target = next(c for c in view["circle"] if c and c["target"])
                grab = {"type": "grab", "card": target["pos"], "id": target["id"]}
                await looked_at_the_dice(ana, bo)
                results = await asyncio.gather(ana.act(grab), bo.act(grab), return_exceptions=True)
                winners = [i for i, r in enumerate(results) if isinstance(r, dict)]
                refused = [r for r in results if isinstance(r, RequestError)]
                assert len(winners) == 1 and len(refused) == 1, results
                # Refused because the other grabbed it first (or, when it was the round's
                # only match, because that grab ended the round, or the game with it).
                if isinstance(refused[0], ActionRefused):
                    assert "first" in refused[0].words or "round is over" in refused[0].words
                else:
                    assert refused[0].code == "no_game" and hosted.game.finished, refused
                winner_seat = [ana.seat, bo.seat][winners[0]]
                # Both replicas hold the same log as the host, and in it one grab of that
                # card: the winner's. (The host's timers may have moved the game on to the
                # next round meanwhile, so the log is read, not the current round's view.)
                await wait_until(in_step, timeout=30)
                assert ana.events == bo.events == hosted.events
                assert ana.game.digest() == bo.game.digest() == hosted.game.digest()
                grabs = [e for e in hosted.events[seen:] if e["action"]["type"] == "grab"]
                assert [(e["seat"], e["action"]["id"]) for e in grabs] == [
                    (winner_seat, target["id"])
                ]
                # Finish the round: whoever may still act passes.
                for client in (ana, bo):
                    if client.game.phase == "grabbing" and client.game.legal_actions(client.seat):
                        await client.act({"type": "pass"})
                await wait_until(
                    lambda: hosted.game.phase != "grabbing" or hosted.game.finished, timeout=30
                )
            assert rounds >= 1


async def test_a_killed_client_rejoins_with_its_seat_and_digest(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana:
            bo = Client(reconnect=False)
            await bo.connect("127.0.0.1", host.port, "Bo")
            table = await ana.create_table("dice", {"away_limit_ms": 60000})
            await bo.join_table(table["id"])
            await bo.ready()
            await ana.start()
            await wait_until(lambda: bo.game is not None)
            seat, token = bo.seat, bo.token
            hosted = host.tables[table["id"]]
            # Play a few moves, then kill Bo's connection without a goodbye.
            for _ in range(2):
                mover = ana if ana.game.current == ana.seat else bo
                await mover.act({"type": "roll", "hold": []})
                await mover.act({"type": "score", "box": mover.game.best_box()})
            bo._writer.transport.abort()
            await wait_until(lambda: hosted.game.away[seat])
            assert hosted.events[-1]["action"] == {"type": "away", "seat": seat}
            await wait_until(lambda: ana.table["seats"][seat]["away"])
            await bo.close()
            # The same person comes back with the token.
            async with connected(host, "Bo again", token=token) as back:
                await wait_until(lambda: back.game is not None and not hosted.game.away[seat])
                assert back.seat == seat
                assert back.table["seats"][seat]["name"] == "Bo"  # the header's name stays
                await wait_until(lambda: len(back.events) == len(hosted.events))
                assert back.events[-1]["action"] == {"type": "back", "seat": seat}
                assert back.game.digest() == hosted.game.digest() == ana.game.digest()
                # And plays on in that seat.
                if back.game.current == seat:
                    event = await back.act({"type": "roll", "hold": []})
                    assert event["seat"] == seat
