"""A real `kismet-host` process: SIGKILLed mid-game, restarted on the same state folder, the
game goes on with no event lost and the players back in their seats; SIGTERM shuts down
cleanly."""

import asyncio

import pytest

from kismet_tui.net import Client
from kismet_tui.rules import replay
from protocol import read_log
from tests.hostutil import play_turn
from tests.netutil import host_process, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def test_host_killed_mid_game_resumes_with_no_event_lost(tmp_path):
    states = []
    with host_process(tmp_path, bots=0) as proc:
        ana = Client(on_state=lambda state, words: states.append(state))
        bo = Client()
        await ana.connect("127.0.0.1", proc.port, "Ana")
        await bo.connect("127.0.0.1", proc.port, "Bo")
        table = await ana.create_table("dice", {"away_limit_ms": 60000})
        await bo.join_table(table["id"])
        await bo.ready()
        await ana.start()
        await wait_until(lambda: bo.game is not None)
        for _ in range(3):
            await play_turn(ana, bo)
        await wait_until(lambda: len(bo.events) == len(ana.events))
        seen = list(ana.events)
        seats = (ana.seat, bo.seat)

        proc.kill()  # SIGKILL: no goodbye, no flush beyond what was written
        await wait_until(lambda: ana.state == "reconnecting")
        proc.start()

        # Both clients reconnect with their tokens and get their seats back.
        await wait_until(lambda: ana.state == bo.state == "connected", timeout=20)
        await wait_until(
            lambda: (
                ana.game is not None
                and bo.game is not None
                and not any(ana.game.away)
                and not any(bo.game.away)
            ),
            timeout=10,
        )
        assert (ana.seat, bo.seat) == seats
        assert ana.events[: len(seen)] == seen  # nothing lost, nothing rewritten
        assert ana.table["id"] == table["id"]
        # The resumed log marks both away at the restart, then back as they return.
        stamped = [e["action"]["type"] for e in ana.events[len(seen) :]]
        assert sorted(stamped) == ["away", "away", "back", "back"]
        for _ in range(2):
            await play_turn(ana, bo)
        await wait_until(lambda: len(bo.events) == len(ana.events))
        assert ana.game.digest() == bo.game.digest()
        assert states.count("reconnecting") >= 1

        # The file on disk holds every event either client saw, in order.
        files = list((tmp_path / "games").glob("*.kismet"))
        assert len(files) == 1
        header, events = read_log(files[0])
        assert events == ana.events
        assert replay(header, events).digest() == ana.game.digest()

        await ana.close()
        await bo.close()
        assert proc.terminate() == 0  # SIGTERM: clean shutdown
        output = proc.proc.stdout.read()
        assert "kismet-join 127.0.0.1:" in output and "Shutting down" in output


async def test_a_watcher_watches_again_after_a_host_restart(tmp_path):
    """Players get their seats back after a restart; a watcher gets its place among the
    watchers back too, on the same game, not the lobby."""
    with host_process(tmp_path, bots=0) as proc:
        ana, bo, zoe = Client(), Client(), Client()
        await ana.connect("127.0.0.1", proc.port, "Ana")
        await bo.connect("127.0.0.1", proc.port, "Bo")
        await zoe.connect("127.0.0.1", proc.port, "Zoe")
        table = await ana.create_table("dice", {"away_limit_ms": 60000})
        await bo.join_table(table["id"])
        await bo.ready()
        await ana.start()
        await zoe.join_table(table["id"], spectator=True)
        await wait_until(lambda: zoe.game is not None and bo.game is not None)
        await play_turn(ana, bo)
        await wait_until(lambda: len(zoe.events) == len(ana.events))
        watched = zoe.game

        proc.kill()
        await wait_until(lambda: zoe.state == "reconnecting")
        assert zoe.table is not None and zoe.game is watched, (
            "a dropped watcher keeps the board meanwhile"
        )
        proc.start()

        await wait_until(lambda: ana.state == bo.state == zoe.state == "connected", timeout=20)
        await wait_until(
            lambda: (
                zoe.table is not None
                and zoe.table["id"] == table["id"]
                and any(w.get("name") == "Zoe" for w in zoe.table.get("spectators") or [])
            ),
            timeout=10,
        )
        assert zoe.seat is None
        await play_turn(ana, bo)
        await wait_until(
            lambda: zoe.game is not None and len(zoe.events) == len(ana.events), timeout=10
        )
        assert zoe.game.digest() == ana.game.digest()
        for client in (ana, bo, zoe):
            await client.close()


async def test_a_watcher_of_a_table_gone_is_told_and_back_in_the_lobby(tmp_path):
    with host_process(tmp_path, bots=0) as proc:
        ana, zoe = Client(), Client()
        words = []
        await ana.connect("127.0.0.1", proc.port, "Ana")
        await zoe.connect("127.0.0.1", proc.port, "Zoe")
        table = await ana.create_table("dice", {})
        await zoe.join_table(table["id"], spectator=True)
        await wait_until(lambda: zoe.table is not None)
        messages = zoe.messages()

        async def listen():
            async for message in messages:
                if message.get("type") == "notice":
                    words.append(message.get("words"))

        listening = asyncio.create_task(listen())
        proc.kill()  # a table with no game is not kept over a restart
        await wait_until(lambda: zoe.state == "reconnecting")
        proc.start()
        await wait_until(lambda: zoe.state == "connected" and zoe.table is None, timeout=20)
        await wait_until(lambda: bool(words), timeout=10)
        assert f"table {table['id']}" in words[0].lower(), words
        listening.cancel()
        await ana.close()
        await zoe.close()


async def test_a_restarted_host_brings_its_bots_back_and_the_game_ends(tmp_path):
    from kismet_tui.bots.runner import BotLoop, bot_factory
    from tests.netutil import connected, running_host

    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        ana = Client(reconnect=False)
        await ana.connect("127.0.0.1", host.port, "Ana")
        table = await ana.create_table("dice", {"away_limit_ms": 60000}, bots=["greedy"])
        await wait_until(lambda: ana.table["seats"][1]["connected"])
        await ana.start()
        await wait_until(lambda: ana.game is not None)
        for _ in range(2):
            if ana.game.current != ana.seat:
                await wait_until(lambda: ana.game.current == ana.seat)
            await ana.act({"type": "roll", "hold": []})
            await ana.act({"type": "score", "box": ana.game.best_box()})
        token, played = ana.token, len(ana.events)
        await ana.close()
    # The same state folder, a new host process-alike on a new port.
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        hosted = host.tables[table["id"]]
        assert len(hosted.events) >= played
        async with connected(host, "Ana", token=token) as ana:
            await wait_until(lambda: ana.game is not None and not any(ana.game.away))
            assert ana.seat == 0
            player = asyncio.create_task(BotLoop(ana, "greedy", 0.01, rematches=False).run())
            await wait_until(lambda: ana.game.finished, timeout=40)
            player.cancel()
            assert ana.game.digest() == hosted.game.digest()
            assert hosted.state == "finished"
            # The restarted host went on drawing from the same secret stream: the revealed
            # seed checks out for every value, those drawn before the restart included.
            await wait_until(lambda: ana.verification is not None)
            assert ana.verification.ok, ana.verification.words
            assert not list((tmp_path / "tables").iterdir())  # nothing left to resume
            # Its log, written by two hosts, is signed by the folder's one key and checks out.
            from kismet_tui.log_check import check_log
            from protocol.gamelog import read_game_log

            [path] = (tmp_path / "games").glob("*.kismet")
            report = check_log(read_game_log(path), host_key=host.store.identity.fingerprint)
            assert report.ok, report.lines
