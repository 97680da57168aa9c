"""Every write is checked: a short write, a full, read-only or failing disk pauses the table
(nothing unsaved is shown to anyone; a player's move it met is refused for good, to be made
again), tells its players in words, and play goes on by itself once writes succeed; a game is never shown finished before its end record is on disk; a start
that cannot be saved leaves the table where it was; the host will not start on a folder it
cannot write. Faults come from a FaultyDisk under the writer, and, as root, a real tiny tmpfs."""

import asyncio
import os
import subprocess
import sys

import pytest

from kismet_tui.net.client import RequestError
from server.store import Store
from tests.diskfaults import FaultyDisk
from tests.hostutil import _client
from tests.netutil import ROOT, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]

WORDS = {
    "short": "The host cannot save this game right now: its disk is full. Play goes on when there is room.",
    "ENOSPC": "The host cannot save this game right now: its disk is full. Play goes on when there is room.",
    "EROFS": "The host cannot save this game right now: its disk is read-only. Play goes on when it can write again.",
    "EIO": "The host cannot save this game right now: its disk reports an input/output error. "
    "Play goes on when it can write again.",
}
NOT_PLAYED = " Your move was not played: make it again then."


def errors_of(client):
    seen = []
    stream = client.messages()

    async def collect():
        async for message in stream:
            if message["type"] in ("error", "notice") and message.get("re") is None:
                seen.append(message)

    task = asyncio.create_task(collect())
    return seen, task


def the_log(state_dir):
    return next((state_dir / "games").glob("*.kismet"))


@pytest.mark.parametrize("fault", ["short", "ENOSPC", "EROFS", "EIO"])
async def test_an_event_that_cannot_be_saved_is_shown_to_nobody_and_play_resumes(tmp_path, fault):
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await _client(host, "Ana"), await _client(host, "Bo")
        table = await ana.create_table("dice")
        await bo.join_table(table["id"])
        await bo.ready()
        await ana.start()
        await wait_until(lambda: ana.game is not None and bo.game is not None)
        mover, other = (ana, bo) if ana.game.current == ana.seat else (bo, ana)
        told, task = errors_of(other)
        before = len(other.events)
        disk.fail(fault)
        with pytest.raises(RequestError) as refused:
            await mover.act({"type": "roll", "hold": []})
        assert (
            refused.value.code == "cannot_save" and refused.value.words == WORDS[fault] + NOT_PLAYED
        )
        await wait_until(lambda: told)
        assert told[0]["code"] == "cannot_save" and told[0]["words"] == WORDS[fault]
        # Nothing unsaved reached anyone, and the log holds no half record.
        assert len(other.events) == len(mover.events) == before
        _header, events, _end, torn = host.store.read_game(the_log(tmp_path))
        assert len(events) == before and torn == 0
        # Everybody is refused in the same words while the disk refuses writes.
        with pytest.raises(RequestError) as refused:
            await other.act({"type": "roll", "hold": []})
        assert refused.value.words == WORDS[fault] + NOT_PLAYED
        disk.heal()
        await wait_until(lambda: any(m["type"] == "notice" for m in told))
        # The refused roll was not played later: its player makes it again.
        assert len(other.events) == len(mover.events) == before
        await mover.act({"type": "roll", "hold": []})
        await wait_until(lambda: len(other.events) == before + 1)
        assert other.events[-1]["action"] == {"type": "roll", "hold": []}
        await mover.act({"type": "score", "box": mover.game.best_box()})
        await wait_until(lambda: len(other.events) == before + 2)
        assert other.game.digest() == mover.game.digest()
        _header, events, _end, torn = host.store.read_game(the_log(tmp_path))
        assert events == other.events and torn == 0
        task.cancel()
        await ana.close()
        await bo.close()


async def test_a_game_is_never_shown_finished_before_its_end_record_is_on_disk(tmp_path):
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        await ana.start()
        await wait_until(lambda: ana.game is not None)
        while sum(box is None for box in ana.game.cards[0].values()) > 1:
            await ana.act({"type": "roll", "hold": []})
            await ana.act({"type": "score", "box": ana.game.best_box()})
        await ana.act({"type": "roll", "hold": []})
        disk.fail("short")
        with pytest.raises(RequestError):
            await ana.act({"type": "score", "box": ana.game.best_box()})
        assert not ana.game.finished
        _header, _events, end, torn = host.store.read_game(the_log(tmp_path))
        assert end is None and torn == 0
        assert host.tables and next(iter(host.tables.values())).state == "playing"
        disk.heal()
        await wait_until(
            lambda: host.tables and not next(iter(host.tables.values())).saving.waiting
        )
        await ana.act({"type": "score", "box": ana.game.best_box()})  # made again: it counts now
        await wait_until(lambda: ana.game.finished)
        _header, events, end, _torn = host.store.read_game(the_log(tmp_path))
        assert end is not None and end["result"] == ana.game.result() and events == ana.events
        # The write that failed left no trace in the signature either: the log checks out.
        from kismet_tui.log_check import check_log
        from protocol.gamelog import read_game_log

        report = check_log(
            read_game_log(the_log(tmp_path)), host_key=host.store.identity.fingerprint
        )
        assert report.ok, report.lines
        await ana.close()


@pytest.mark.parametrize("fault", ["ENOSPC", "EROFS"])
async def test_a_start_that_cannot_be_saved_leaves_the_table_in_the_lobby(tmp_path, fault):
    disk = FaultyDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await _client(host, "Ana"), await _client(host, "Bo")
        table = await ana.create_table("dice")
        await bo.join_table(table["id"])
        await bo.ready()
        told, task = errors_of(bo)
        disk.fail(fault)
        with pytest.raises(RequestError) as refused:
            await ana.start()
        why = "its disk is full" if fault == "ENOSPC" else "its disk is read-only"
        assert refused.value.code == "cannot_start"
        assert refused.value.words == (
            f"The game could not start: the host cannot save it ({why}). "
            f"The table stays in the lobby."
        )
        await wait_until(lambda: told)
        assert told[0]["code"] == "cannot_start" and told[0]["words"] == refused.value.words
        await wait_until(lambda: bo.table["state"] == "lobby" and bo.table["seats"][1]["ready"])
        assert not list((tmp_path / "games").iterdir()) and not list(
            (tmp_path / "tables").iterdir()
        )
        disk.heal()
        await ana.start()  # the owner tries again, nothing else needed
        await wait_until(lambda: bo.game is not None)
        task.cancel()
        await ana.close()
        await bo.close()


def run_host_cli(state_dir, timeout=20):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--state-dir",
            str(state_dir),
            "--bots",
            "0",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_host_will_not_start_on_a_folder_it_cannot_write(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the state folder should be")
    done = run_host_cli(blocker / "state")
    assert done.returncode == 2
    assert "cannot write to the state folder" in done.stderr and "--state-dir" in done.stderr


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")


@pytest.fixture
def tiny_tmpfs(tmp_path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    # Room for the records' database too (about 200 KB with its WAL); the tests fill the
    # rest themselves.
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@needs_root
def test_the_host_will_not_start_on_a_read_only_folder(tiny_tmpfs):
    (tiny_tmpfs / "games").mkdir()  # a folder the host has used before, now read-only
    (tiny_tmpfs / "tables").mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    done = run_host_cli(tiny_tmpfs)
    assert done.returncode == 2 and "its disk is read-only" in done.stderr, done.stderr


@needs_root
async def test_a_real_full_disk_pauses_the_game_and_loses_nothing(tiny_tmpfs):
    async with running_host(tiny_tmpfs) as host:
        players = [await _client(host, name) for name in ("Ana", "Bo", "Cy", "Di")]
        ana = players[0]
        table = await ana.create_table("dice", {"away_limit_ms": 60000})
        for other in players[1:]:
            await other.join_table(table["id"])
            await other.ready()
        # Fill the disk but for two pages: the new log and the table file; the log's events
        # then fill its page's slack until a write meets the full disk for real. (After the
        # records made their file: they take their room at start, on their own thread.)
        await asyncio.to_thread(host.records.ready.wait, 30)
        filler = tiny_tmpfs / "filler"
        room = os.statvfs(tiny_tmpfs)
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        left = room.f_bavail * room.f_frsize - 2 * room.f_frsize
        try:
            while left > 0:
                left -= os.write(fd, b"\0" * min(left, 65536))
        finally:
            os.close(fd)
        await ana.start()
        await wait_until(lambda: all(p.game is not None for p in players))
        paused = None
        for _ in range(400):  # play until a write meets the full disk
            mover = next(p for p in players if p.game.current == p.seat)
            try:
                await mover.act({"type": "roll", "hold": []})
                await mover.act({"type": "score", "box": mover.game.best_box()})
            except RequestError as exc:
                paused = exc
                break
            if mover.game.finished:
                break
        assert paused is not None and paused.words == WORDS["ENOSPC"] + NOT_PLAYED
        seen = len(ana.events)
        _header, events, end, torn = Store(tiny_tmpfs).read_game(the_log(tiny_tmpfs))
        assert events == ana.events and torn == 0 and end is None
        filler.unlink()  # room again: play goes on by itself, and the move is made again
        await wait_until(lambda: not next(iter(host.tables.values())).saving.waiting)
        mover = next(p for p in players if p.game.current == p.seat)
        await mover.act(
            {"type": "roll", "hold": []}
            if mover.game.rolls == 0
            else {"type": "score", "box": mover.game.best_box()}
        )
        await wait_until(lambda: len(ana.events) == seen + 1)
        _header, events, _end, torn = Store(tiny_tmpfs).read_game(the_log(tiny_tmpfs))
        assert events == ana.events and torn == 0
        for player in players:
            await player.close()
