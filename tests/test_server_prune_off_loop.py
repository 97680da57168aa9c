"""Pruning old logs at a game end runs off the host's event loop (issue 20 point 6): while a
prune is held up mid-way, the host still answers a ping; once it goes on, the keep holds.
Over real TCP against an in-process host; conditions, never times."""

import threading

import pytest

import server.store
from protocol import limits
from tests.netutil import running_host, wait_until
from tests.test_server_hostile import Raw, _client
from tests.test_server_keep_games import play_solo_dice

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]

KEEP = 3


async def test_the_host_answers_while_a_prune_is_under_way(tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    for n in range(KEEP):
        (games / f"20260101-00000{n}-table{n + 1}-dice.kismet").write_bytes(b"")
    async with running_host(tmp_path, keep_games=KEEP) as host:
        entered, release = threading.Event(), threading.Event()
        waited_in_vain = []
        unlink = server.store._unlink

        def held_unlink(path):
            if path.suffix == ".kismet" and not entered.is_set():
                entered.set()
                # Bounded: were the prune on the event loop, nothing could release it, and
                # the test fails below instead of hanging.
                waited_in_vain.append(not release.wait(10))
            unlink(path)

        monkeypatch.setattr(server.store, "_unlink", held_unlink)
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        await play_solo_dice(ana)  # a game ends: KEEP + 1 finished logs, one to prune
        await wait_until(entered.is_set)
        raw = await Raw().open(host.port)
        raw.send({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": "Bo", "id": 1})
        assert (await raw.recv_type("welcome"))["re"] == 1
        raw.send({"type": "ping", "id": 2})
        assert (await raw.recv_type("pong"))["re"] == 2
        assert not release.is_set()  # answered while the prune was still held
        release.set()
        await wait_until(lambda: len(list(games.glob("*.kismet"))) == KEEP)
        assert waited_in_vain == [False]
        assert ana.table["state"] == "finished"  # the game just finished is among those kept
        raw.close()
        await ana.close()


async def test_a_failing_prune_is_logged_and_the_next_one_runs(tmp_path, monkeypatch, caplog):
    async with running_host(tmp_path, keep_games=KEEP) as host:
        calls = []
        prune = host.store.prune_games

        def failing_once():
            calls.append(1)
            if len(calls) == 1:
                raise OSError("the disk said no")
            return prune()

        monkeypatch.setattr(host.store, "prune_games", failing_once)
        host.store.prune_soon()
        await wait_until(lambda: host.store.last_prune.done())
        assert "pruning the finished game logs failed" in caplog.text
        host.store.prune_soon()
        await wait_until(lambda: len(calls) == 2 and host.store.last_prune.done())
        assert host.store.last_prune.exception() is None
