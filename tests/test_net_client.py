"""The client library's promises: state before messages, host time, knock's secret pre-lay
revealed by itself, rematches, leaving, and the connection state."""

import asyncio

import pytest

from kismet_tui.net import CONNECTED, ActionRefused, Client, RequestError
from kismet_tui.rules import knock
from tests.netutil import connected, running_host, start_together, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def test_messages_arrive_after_the_client_state_is_updated(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            seen = []

            async def watch():
                async for message in bo.messages():
                    if message["type"] == "table":
                        seen.append(("table", bo.table["id"], bo.seat))
                    if message["type"] == "game":
                        seen.append(("game", bo.game is not None, len(bo.events)))
                    if message["type"] == "event":
                        seen.append(("event", message["seq"], len(bo.events)))
                        seen.append(("notes", message["notes"]))
                        return

            watcher = asyncio.create_task(watch())
            table = await ana.create_table("dice")
            await bo.join_table(table["id"])
            await bo.ready()
            await ana.start()
            mover = ana if ana.game.current == ana.seat else bo
            await mover.act({"type": "roll", "hold": []})
            await asyncio.wait_for(watcher, 5)
            assert ("table", table["id"], 1) in seen
            assert ("game", True, 0) in seen
            assert seen[-2] == ("event", 1, 1)
            # The engine's notes for the event come with it, for move logs.
            ((kind, notes),) = seen[-1:]
            assert [note["type"] for note in notes] == ["rolled"]
            assert notes[0]["seat"] == mover.seat and notes[0]["dice"] == bo.game.view(None)["dice"]


async def test_host_time_estimate_is_close(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana:
            assert abs(ana.host_time_ms() - host.now_ms()) < 50


async def test_knock_prelay_is_committed_secretly_and_revealed_by_the_client(tmp_path):
    options = {"knock_window_ms": 0, "away_limit_ms": 20000}
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            table = await start_together(ana, [bo], "knock", options)
            await wait_until(lambda: bo.game is not None)
            commit_event = await ana.prelay([12])
            commitment = commit_event["action"]["commit"]
            assert commitment != knock.prelay_commitment([12], knock.PUBLIC_SALT)
            assert bo.game.phase == "prelay_commit"  # Bo sees only a hash
            with pytest.raises(ActionRefused) as err:
                await bo.prelay([2, 7])  # 6 + 1 chips: over the limit, refused before committing
            assert "at most 6" in err.value.words
            await bo.prelay([7, 6])
            # Both reveals go out by themselves once both have committed.
            await wait_until(lambda: ana.game.phase == "play" and bo.game.phase == "play")
            hosted = host.tables[table["id"]]
            reveals = [e for e in hosted.events if e["action"]["type"] == "reveal"]
            assert sorted(e["seat"] for e in reveals) == [0, 1]
            view = ana.game.view(ana.seat)
            assert view["players"][ana.seat]["laid"] == [12]
            assert {c["number"] for c in view["players"][bo.seat]["open"]} == set(range(2, 13)) - {
                6,
                7,
            }


async def test_rematch_at_the_same_table_and_leaving(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Solo") as solo:
            await solo.create_table("dice")
            for game_no in (1, 2):
                await solo.start()
                await wait_until(lambda: solo.game is not None and solo.table["state"] == "playing")
                commit = solo.header["commit"]
                while not solo.game.finished:
                    if solo.game.rolls == 0:
                        await solo.act({"type": "roll", "hold": []})
                    else:
                        await solo.act({"type": "score", "box": solo.game.best_box()})
                await wait_until(lambda: solo.table["state"] == "finished")
                assert solo.table["games_played"] == game_no
                # The end revealed the seed; it matched the commit and every die it drew.
                await wait_until(lambda: solo.verification is not None)
                assert solo.verification.ok, solo.verification.words
                assert solo.table["commit"] != commit  # the next game has its own secret
            assert len(list((tmp_path / "games").glob("*.kismet"))) == 2
            assert solo.header["commit"] == commit
            await solo.leave()
            assert solo.table is None and solo.game is None
            assert await solo.list_tables() == []  # the last one out closes the table
            with pytest.raises(RequestError) as err:
                await solo.start()
            assert err.value.code == "not_at_table"


async def test_connection_state_is_reported(tmp_path):
    states = []
    async with running_host(tmp_path) as host:
        client = Client(on_state=lambda state, words: states.append((state, words)))
        await client.connect("127.0.0.1", host.port, "Ana")
        assert client.state == CONNECTED
        await client.close()
    assert [s for s, _ in states] == ["connecting", "connected", "closed"]
    with pytest.raises(OSError):
        await Client().connect("127.0.0.1", 1, "Nobody")


async def test_a_second_connection_with_the_token_replaces_the_first_for_good(tmp_path):
    async with running_host(tmp_path) as host:
        states = []
        first = Client(on_state=lambda state, words: states.append((state, words)))
        await first.connect("127.0.0.1", host.port, "Ana")
        table = await first.create_table("dice")
        async with connected(host, "Ana", token=first.token) as second:
            await wait_until(lambda: first.state == "closed")
            assert states[-1] == ("closed", "You connected again from somewhere else.")
            assert second.client_id == first.client_id
            assert second.table["id"] == table["id"] and second.seat == 0
            await asyncio.sleep(0.3)  # the first does not come back to fight for the seat
            assert first.state == "closed" and host.players[second.token].conn is not None
        await first.close()


async def test_a_diverged_replica_is_caught_by_its_digest_and_replaced(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Solo") as solo:
            await solo.create_table("dice")
            await solo.start()
            await wait_until(lambda: solo.game is not None)
            await solo.act({"type": "roll", "hold": []})
            assert await solo.check_digest() is True
            solo.game.cards[solo.seat]["aces"] = 99  # a corrupted replica
            assert await solo.check_digest() is False
            assert solo.desyncs == 1 and host.desyncs == 1
            assert solo.game.cards[solo.seat]["aces"] is None
            assert solo.game.digest() == host.tables[solo.table["id"]].game.digest()
