"""When the host flushes its files to the disk, and on which thread (server/store.py): every
flush runs off the event loop; a starting game's header and table file right after they are
written, a finished game's end record before anyone is shown the game finished, while the
host's other tables play on. Over real TCP with an in-process host and a disk that notes
each fsync (and can hold one)."""

import asyncio
import errno
import os
import threading
from pathlib import Path

import pytest

from server.store import Disk
from tests.hostutil import _client, play_solo_dice
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


class NotingDisk(Disk):
    """Each fsync noted: (the file's name, whether it ran on the event loop's thread). With
    `hold_end`, the flush of a game log's end (its second flush, after the header's) waits
    until `release` is set; with `fail_end`, that flush fails that many times first."""

    def __init__(self, hold_end: bool = False, fail_end: int = 0):
        self.loop_thread = threading.get_ident()  # made on the test's event loop thread
        self.syncs: list[tuple[str, bool]] = []
        self.hold_end, self.fail_end = hold_end, fail_end
        self.holding = threading.Event()
        self.release = threading.Event()

    def fsync(self, fd: int) -> None:
        name = Path(os.readlink(f"/proc/self/fd/{fd}")).name
        self.syncs.append((name, threading.get_ident() == self.loop_thread))
        is_end = name.endswith(".kismet") and [n for n, _ in self.syncs].count(name) >= 2
        if is_end and self.fail_end:
            self.fail_end -= 1
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        if is_end and self.hold_end:
            self.holding.set()
            assert self.release.wait(60), "the test never let the end's flush go on"
        super().fsync(fd)


async def test_every_flush_runs_off_the_loop(tmp_path):
    disk = NotingDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana = await _client(host, "Ana")
        table = await ana.create_table("dice")
        await play_solo_dice(ana)  # sees the table finished: the end is on the disk by then
        log_name = next((tmp_path / "games").glob("*.kismet")).name
        table_file = f"{table['id']}.json"

        def flushed():
            return [name for name, on_loop in disk.syncs]

        # The start: the log's header and the table file (soon, on their threads); the end:
        # the log again (before Ana saw the end).
        await wait_until(lambda: flushed().count(log_name) == 2 and table_file in flushed())
        assert not [name for name, on_loop in disk.syncs if on_loop]
        await ana.close()


async def test_the_end_is_shown_only_once_flushed_and_other_tables_play_on_meanwhile(tmp_path):
    disk = NotingDisk(hold_end=True)
    async with running_host(tmp_path, disk=disk) as host:
        ana, bo = await _client(host, "Ana"), await _client(host, "Bo")
        await ana.create_table("dice")
        await bo.create_table("dice")
        playing = asyncio.ensure_future(play_solo_dice(ana))
        await wait_until(disk.holding.is_set)  # Ana's last score is stamped and written
        # Nobody is shown the end before it is on the disk...
        assert not ana.game.finished and ana.table["state"] == "playing"
        # ...while the host goes on serving everyone else: Bo starts and plays.
        await bo.start()
        await wait_until(lambda: bo.game is not None and bo.table["state"] == "playing")
        await bo.act({"type": "roll", "hold": []})
        assert not ana.game.finished
        disk.release.set()
        await asyncio.wait_for(playing, 30)  # the end is shown now
        assert ana.game.finished and ana.table["state"] == "finished"
        await ana.close()
        await bo.close()


async def test_an_end_that_cannot_be_flushed_is_told_and_shown_once_it_is(tmp_path):
    disk = NotingDisk(fail_end=1)
    async with running_host(tmp_path, disk=disk) as host:
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        await play_solo_dice(ana)  # finishes, after the flush tried again
        assert disk.fail_end == 0 and ana.game.finished
        log_name = next((tmp_path / "games").glob("*.kismet")).name
        assert [name for name, _ in disk.syncs].count(log_name) == 3  # header, failed end, end
        await ana.close()


async def test_a_move_while_the_end_is_saved_is_not_taken_for_an_illegal_one(tmp_path):
    """The end is held back until it is on the disk, so a player (or a bot) who has not seen
    it may still act; the host says the game is ending, with a code of its own. Answered as
    `illegal`, a bot took it for a rules refusal of a legal move ("refused although legal"),
    seen in CI's race-easy bot game."""
    from kismet_tui.net import ActionRefused, RequestError

    disk = NotingDisk(hold_end=True)
    async with running_host(tmp_path, disk=disk) as host:
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        playing = asyncio.ensure_future(play_solo_dice(ana))
        await wait_until(disk.holding.is_set)  # Ana's last score is stamped, its end held
        with pytest.raises(RequestError) as refused:
            await ana.act({"type": "roll", "hold": []})
        assert refused.value.code == "game_ending" and not isinstance(refused.value, ActionRefused)
        assert "over" in refused.value.words
        disk.release.set()
        await asyncio.wait_for(playing, 30)
        await ana.close()
