"""Finished games are kept within bounds: --keep-games N removes the oldest finished logs
first (through the records' index, server/records/); an unfinished table's log is never
removed. Over real TCP, in-process host."""

import asyncio

import pytest

from tests.hostutil import _client, play_solo_dice
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


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
        kept: set[str] = set()
        newest = ""
        for _ in range(4):
            before = {p.name for p in games.glob("*.kismet")}
            await play_solo_dice(ana)
            # Pruned after the game, off the host's event loop: soon, not at once.
            await wait_until(lambda: len([p for p in games.glob("*.kismet") if p != running]) <= 2)
            kept = {p.name for p in games.glob("*.kismet") if p != running}
            # The game just played, found by what is new, not by name: two games ended in the
            # same second are named "...-dice.kismet" and "...-dice-2.kismet", which sort the
            # other way round.
            (newest,) = kept - before
        assert running.exists() and len(kept) == 2
        await ana.close()
        await bo.close()
        await cy.close()
    # A host started with a smaller bound prunes at start (through the records, on their
    # thread: soon), the running game still kept.
    async with running_host(tmp_path, keep_games=1) as host:
        await wait_until(lambda: len(list(games.glob("*.kismet"))) == 2)
        left = sorted(p.name for p in games.glob("*.kismet"))
        assert running.name in left and newest in left


def test_keep_games_has_a_sensible_default():
    from server.cli import build_parser
    from server.store import DEFAULT_KEEP_GAMES

    assert build_parser().parse_args([]).keep_games == DEFAULT_KEEP_GAMES == 1000
    assert build_parser().parse_args(["--keep-games", "5"]).keep_games == 5


async def test_no_game_end_lists_the_logs_the_records_prune_through_their_index(
    tmp_path, monkeypatch
):
    import os

    games = tmp_path / "games"
    async with running_host(tmp_path, keep_games=3) as host:
        await asyncio.to_thread(host.records.ready.wait, 30)  # the start's one look at the folder
        listed = []
        scandir = os.scandir

        def counted(path=".", *args):
            if str(path).endswith("games"):
                listed.append(path)
            return scandir(path, *args)

        monkeypatch.setattr(os, "scandir", counted)
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        for _ in range(4):  # the fourth is one too many: pruned, off the loop
            await play_solo_dice(ana)
        drained = asyncio.get_running_loop().create_future()
        host.records.ask(
            lambda db: None,  # answered after the four games queued before it
            lambda _: drained.get_loop().call_soon_threadsafe(drained.set_result, None),
        )
        await drained
        assert listed == []
        monkeypatch.undo()
        assert len(list(games.glob("*.kismet"))) == 3
        await ana.close()
