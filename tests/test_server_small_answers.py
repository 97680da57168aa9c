"""The small ones of issue 20 point 7, each over real TCP: a body over a limit is answered
with its request id; a flood is closed after exactly the documented 40 drops; `resync` and
`digest` away from any table say so; the players of a table whose table file is unreadable
are told at hello; `--keep-games 0` keeps every replay."""

import asyncio
import os
import subprocess
import sys

import pytest

from protocol import limits
from protocol.framing import encode
from tests.hostutil import Raw, hello_with, two_games
from tests.netutil import ROOT, free_port, running_host
from tests.records_util import write_finished_log

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]


async def test_a_body_over_a_limit_is_answered_with_its_request_id(tmp_path):
    async with running_host(tmp_path) as host:
        raw = await Raw().open(host.port)
        await raw.hello()
        raw.send(
            {"type": "chat", "text": "hi", "id": 9, "junk": list(range(limits.MAX_ARRAY_LEN + 1))}
        )
        error = await raw.recv_type("error")
        assert error == {
            "type": "error",
            "code": "bad_message",
            "kind": "malformed",
            "re": 9,
            "words": "That message holds a list longer than the host takes.",
        }
        raw.send({"id": 10, **{f"k{n}": n for n in range(limits.MAX_MAP_LEN + 1)}})
        error = await raw.recv_type("error")
        assert error["code"] == "bad_message" and error["re"] == 10
        raw.send({"type": "ping", "id": 11})  # and the connection goes on
        assert (await raw.recv_type("pong"))["re"] == 11
        raw.close()


async def test_a_flood_is_closed_after_exactly_40_drops(tmp_path):
    async with running_host(tmp_path) as host:
        raw = await Raw().open(host.port)
        await raw.hello()
        raw.writer.write(
            b"".join(
                encode({"type": "ping", "id": n})
                for n in range(limits.RATE_BURST + limits.FLOOD_STRIKES + 50)
            )
        )
        dropped, last = [], None
        try:
            while True:
                message = await raw.recv()
                if message["type"] == "error":
                    if "re" in message:
                        dropped.append(message["re"])
                    else:
                        last = message
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        assert len(dropped) == limits.FLOOD_STRIKES == 40
        assert last == {
            "type": "error",
            "code": "slow_down",
            "kind": "limit",
            "words": "Too many messages: closing this connection.",
        }


async def test_resync_and_digest_away_from_any_table_say_so(tmp_path):
    async with running_host(tmp_path) as host:
        raw = await Raw().open(host.port)
        await raw.hello()
        raw.send({"type": "resync", "id": 1})
        assert (await raw.recv_type("error"))["code"] == "not_at_table"
        raw.send({"type": "digest", "seq": 0, "digest": "00", "id": 2})
        assert (await raw.recv_type("error"))["code"] == "not_at_table"
        raw.send({"type": "create_table", "ruleset": "dice", "id": 3})
        await raw.recv_type("ok")
        raw.send({"type": "resync", "id": 4})  # at a table with no game yet
        assert (await raw.recv_type("error"))["code"] == "no_game"
        raw.close()


async def test_players_of_an_unreadable_table_file_are_told_at_hello(tmp_path):
    async with running_host(tmp_path) as host:
        (first, tokens), (second, _) = await two_games(host.port)
    table_file = tmp_path / "tables" / f"{first}.json"
    data = table_file.read_bytes()
    table_file.write_bytes(data[: data.index(b'"game_file"')] + b"\xff\x00")  # cut, garbled
    async with running_host(tmp_path) as host:
        assert list(host.tables) == [second]
        for token in tokens:
            raw, welcome = await hello_with(host.port, token)
            assert welcome["table"] is None
            told = await raw.recv_type("error")
            assert told["code"] == "no_table"
            assert told["words"].startswith(
                f"Your table {first} could not be taken up again "
                f"after the host restarted: its table file cannot be read"
            )
            raw.close()


def run_host_until_listening(state_dir, *options):
    """A real kismet-host with `options`, stopped (SIGTERM) once it listens; (exit code, output)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(free_port()),
            "--state-dir",
            str(state_dir),
            "--bots",
            "0",
            "--no-announce",
            *options,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("Players join with"):
            proc.terminate()
    proc.wait(30)
    proc.stdout.close()
    return proc.returncode, "".join(lines)


def test_keep_games_0_keeps_every_replay_and_a_negative_count_is_refused(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    for n in range(5):  # finished games (the records prune what they indexed)
        write_finished_log(
            games,
            f"20260101-00000{n}-table{n + 1}-dice.kismet",
            "dice",
            ["Ana"],
            [None],
            [200 + n],
            t0=n * 1000,
            t_end=n * 1000 + 500,
            table=n + 1,
        )
    # A host prunes at start, before it says it listens (its exit code is not the point: it
    # may be stopped before it has set up its signal handlers).
    _code, said = run_host_until_listening(tmp_path, "--keep-games", "0")
    assert "Traceback" not in said and len(list(games.glob("*.kismet"))) == 5
    _code, said = run_host_until_listening(tmp_path, "--keep-games", "2")
    assert "Traceback" not in said and len(list(games.glob("*.kismet"))) == 2
    code, said = run_host_until_listening(tmp_path, "--keep-games", "-1")
    assert code == 2 and "--keep-games is a count: 0 or more (0: no limit)." in said
