"""When the host flushes its files to the disk, and on which thread (server/store.py): a
starting game's header and table file are flushed off the event loop, right after they are
written; a finished game's end record is flushed before anyone is shown the game finished.
Over real TCP with an in-process host and a disk that notes each fsync."""

import os
import threading
from pathlib import Path

import pytest

from server.store import Disk
from tests.netutil import running_host, wait_until
from tests.test_server_hostile import _client
from tests.test_server_keep_games import play_solo_dice

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


class NotingDisk(Disk):
    """Each fsync noted: (the file's name, whether it ran on the event loop's thread)."""

    def __init__(self):
        self.loop_thread = threading.get_ident()  # made on the test's event loop thread
        self.syncs: list[tuple[str, bool]] = []

    def fsync(self, fd: int) -> None:
        name = Path(os.readlink(f"/proc/self/fd/{fd}")).name
        self.syncs.append((name, threading.get_ident() == self.loop_thread))
        super().fsync(fd)


async def test_a_start_is_flushed_off_the_loop_and_an_end_on_it_before_it_is_shown(tmp_path):
    disk = NotingDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana = await _client(host, "Ana")
        table = await ana.create_table("dice")
        await play_solo_dice(ana)  # sees the table finished: the end is on the disk by then
        log_name = next((tmp_path / "games").glob("*.kismet")).name
        table_file = f"{table['id']}.json"
        await wait_until(lambda: host.store.last_sync is not None and host.store.last_sync.done())
        on_loop = {name for name, loop in disk.syncs if loop}
        off_loop = {name for name, loop in disk.syncs if not loop}
        # The start: the log's header and the table file, each flushed, neither on the loop.
        assert log_name in off_loop and table_file in off_loop
        assert table_file not in on_loop
        # The end record: flushed on the loop, in the handler that shows the last event.
        assert on_loop == {log_name}
        await ana.close()
