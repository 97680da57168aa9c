"""Finished games are kept within bounds: --keep-games N removes the oldest finished logs
first; an unfinished table's log is never removed. Over real TCP, in-process host."""

import asyncio

import pytest

from tests.netutil import running_host, wait_until
from tests.test_server_hostile import _client

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


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
    await wait_until(lambda: client.game is not None and not client.game.finished
                     and client.table["state"] == "playing")
    while not client.game.finished:
        await paced(client, {"type": "roll", "hold": []})
        await paced(client, {"type": "score", "box": client.game.best_box()})
    await wait_until(lambda: client.table["state"] == "finished")


async def test_the_oldest_finished_logs_go_first_and_unfinished_ones_stay(tmp_path):
    games = tmp_path / "games"
    async with running_host(tmp_path, keep_games=2) as host:
        # The oldest log of all belongs to a game still running: it must stay.
        bo, cy = await _client(host, "Bo"), await _client(host, "Cy")
        table = await bo.create_table("dice", {"away_limit_ms": 60000})
        await cy.join_table(table["id"])
        await cy.ready()
        await bo.start()
        await wait_until(lambda: cy.game is not None)
        running = next(games.glob("*.kismet"))
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        kept = []
        for _ in range(4):
            await play_solo_dice(ana)
            # Pruned after the game, off the host's event loop: soon, not at once.
            await wait_until(lambda: len([p for p in games.glob("*.kismet") if p != running]) <= 2)
            kept = sorted(p.name for p in games.glob("*.kismet") if p != running)
        assert running.exists() and len(kept) == 2
        await ana.close(); await bo.close(); await cy.close()
    # A host started with a smaller bound prunes at start, the running game still kept.
    async with running_host(tmp_path, keep_games=1) as host:
        left = sorted(p.name for p in games.glob("*.kismet"))
        assert running.name in left and len(left) == 2 and kept[-1] in left


def test_keep_games_has_a_sensible_default():
    from server.cli import build_parser
    from server.store import DEFAULT_KEEP_GAMES
    assert build_parser().parse_args([]).keep_games == DEFAULT_KEEP_GAMES == 1000
    assert build_parser().parse_args(["--keep-games", "5"]).keep_games == 5


async def test_a_host_within_its_keep_does_not_list_its_logs_at_each_game_end(tmp_path):
    games = tmp_path / "games"
    async with running_host(tmp_path, keep_games=3) as host:
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        for _ in range(3):
            await play_solo_dice(ana)
        # Three logs, three kept: the store counted them, so no game end asked for a prune.
        assert len(list(games.glob("*.kismet"))) == 3 and host.store.last_prune is None
        await play_solo_dice(ana)  # the fourth is one too many: pruned, off the loop
        await wait_until(lambda: host.store.last_prune is not None and host.store.last_prune.done())
        await wait_until(lambda: len(list(games.glob("*.kismet"))) == 3)
        await ana.close()
