"""The records over real TCP: a game played to its end by two real clients shows each seat's
rating change and the table's standings, and the `records` request pages the index (nonsense
gets words). A real kismet-host killed before a finished game's row was written loses no game
from the records after a restart."""

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from kismet_tui.net import Client
from kismet_tui.net.client import RequestError
from server.records import FILE_NAME
from server.records.proof import player_id
from tests.hostutil import keyed_client, paced, play_solo_dice, play_two_player_dice
from tests.netutil import ROOT, free_port, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def test_a_finished_game_shows_rating_changes_standings_and_pages_of_records(tmp_path):
    async with running_host(tmp_path) as host:
        bo = await keyed_client(host.port, "Bo", "b" * 40)
        cy = await keyed_client(host.port, "Cy", "c" * 40)
        table = await bo.create_table("dice")
        await cy.join_table(table["id"])
        await cy.ready()
        await paced(bo)
        await wait_until(lambda: bo.game is not None and cy.game is not None)
        await play_two_player_dice(bo, cy)
        # The records take the game in off the loop, then the table shows the outcome.
        await wait_until(lambda: all(s.get("outcome") for s in bo.table["seats"]))
        seats = bo.table["seats"]
        winners = bo.game.result()["winners"]
        assert [s["wins"] for s in seats] == [
            int(i in winners) for i in range(2)
        ]  # a tie: both won
        winner = winners[0]
        for seat in seats:
            assert seat["outcome"]["rating"] == 1000 + seat["outcome"]["change"]
        if len(winners) == 1:
            assert seats[winner]["outcome"]["change"] > 0 > seats[1 - winner]["outcome"]["change"]

        # One rated game each: not on the leaderboard yet (protocol.limits.MIN_RATED_GAMES).
        board = await bo.records("leaderboard", "dice")
        assert board["rows"] == []
        assert board["more"] is False and board["me"] == player_id("key " + "b" * 40)
        mine = await bo.records("player")
        assert mine["name"] == "Bo" and mine["standings"][0]["games"] == 1
        assert mine["standings"][0]["rated"] == 1
        assert mine["rows"][0]["log"].endswith("-dice.kismet")
        recent = await cy.records("recent")
        assert [s["name"] for s in recent["rows"][0]["seats"]] == ["Bo", "Cy"]
        for nonsense, words in (
            ({"view": "everything"}, "'view' must be one of"),
            ({"view": "player", "player": "../etc"}, "a player's id"),
            ({"view": "recent", "page": -1}, "'page' must be between"),
        ):
            with pytest.raises(RequestError) as refused:
                await bo._request({"type": "records", **nonsense})
            assert refused.value.code == "bad_message" and words in refused.value.words
        assert (await bo.records("recent"))["rows"]  # still answered after the nonsense
        await bo.close()
        await cy.close()


def schema_made(path) -> bool:
    if not path.exists():
        return False
    db = sqlite3.connect(path)
    try:
        return (
            db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'games'").fetchone()[0] == 1
        )
    except sqlite3.Error:
        return False
    finally:
        db.close()


async def test_a_host_killed_before_the_row_was_written_loses_no_game(tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            str(tmp_path),
            "--bots",
            "0",
            "--no-announce",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        await wait_until(lambda: schema_made(tmp_path / FILE_NAME))
        ana = None
        for _ in range(300):  # listening soon after the file exists
            try:
                ana = await keyed_client(port, "Ana", "a" * 40)
                break
            except OSError:
                await asyncio.sleep(0.05)
        assert ana is not None
        # Another writer holds the database: the host's row for the game cannot be written.
        blocker = sqlite3.connect(tmp_path / FILE_NAME, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        await ana.create_table("dice")
        await play_solo_dice(ana)  # finished and synced in the log, waiting for the records
        score = ana.game.result()["scores"][0]
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        blocker.execute("ROLLBACK")
        blocker.close()
        await ana.close()
        finished = list((tmp_path / "games").glob("*.kismet"))
        assert len(finished) == 1
        held = (
            sqlite3.connect(tmp_path / FILE_NAME)
            .execute("SELECT COUNT(*) FROM games")
            .fetchone()[0]
        )
        assert held == 0  # the kill came before the row
        async with running_host(tmp_path) as host:
            host.records.ready.wait(30)
            back = await keyed_client(host.port, "Ana", "a" * 40)
            best = await back.records("best", "dice")
            assert [row["log"] for row in best["rows"]] == [finished[0].name]
            assert best["rows"][0]["score"] == score and best["rows"][0]["name"] == "Ana"
            await back.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        proc.stdout.close()


async def test_a_door_player_is_known_by_the_doors_proof_and_a_key_beside_it_is_ignored(tmp_path):
    async with running_host(tmp_path) as host:
        door_pass = host.door_passes.issue("ssh", "192.0.2.7", "ssh-key SHA256:abc")
        client = Client(reconnect=False, door_pass=door_pass)
        client.player_key = "the host user's own key, read from their files by the door's client"[
            :60
        ]
        await client.connect("127.0.0.1", host.port, "Ana")
        await client.create_table("dice")
        await play_solo_dice(client)
        assert client.header["players"] == [player_id("door ssh-key SHA256:abc")]
        mine = await client.records("player")
        assert mine["me"] == player_id("door ssh-key SHA256:abc") and mine["found"]
        await client.close()
