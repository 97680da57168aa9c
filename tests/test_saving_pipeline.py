"""One way to the disk per table (server/saving.py): the game's end goes the same way as every
other event, and no flush ever runs on the event loop, not even when the disk refused the
end and the table tries again. Over real TCP with an in-process host and a FaultyDisk that
notes the thread of each fsync."""

import threading

import pytest

from kismet_tui.net import Client
from kismet_tui.rules import HOST
from tests.diskfaults import FaultyDisk
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]


class ThreadNotingDisk(FaultyDisk):
    """A FaultyDisk that notes whether each fsync ran on the event loop's thread."""

    def __init__(self) -> None:
        super().__init__()
        self.loop_thread = threading.get_ident()  # made on the test's event loop thread
        self.on_loop = 0
        self.syncs = 0

    def fsync(self, fd: int) -> None:
        self.syncs += 1
        if threading.get_ident() == self.loop_thread:
            self.on_loop += 1
        super().fsync(fd)


async def test_a_held_end_is_written_again_and_flushed_off_the_loop(tmp_path):
    """A host stamp that ends the game (a timeout) meets a full disk: it is held, nobody is
    shown the end, and once the disk takes it again the end is flushed on a sync thread
    before anyone sees it. (Before one pipeline, the retry flushed on the event loop.)"""
    disk = ThreadNotingDisk()
    async with running_host(tmp_path, disk=disk) as host:
        ana = Client(reconnect=False)
        await ana.connect("127.0.0.1", host.port, "Ana")
        await ana.create_table("dice", {"away_limit_ms": 1000})
        await ana.start()
        await wait_until(lambda: ana.game is not None and ana.table["state"] == "playing")
        while sum(box is None for box in ana.game.cards[0].values()) > 1:
            await ana.act({"type": "roll", "hold": []})
            await ana.act({"type": "score", "box": ana.game.best_box()})
        table = next(iter(host.tables.values()))
        # Ana is marked away: a second later the host plays her last box, ending the game.
        table.stamp(HOST, {"type": "away", "seat": 0})
        disk.fail("ENOSPC")
        await wait_until(lambda: table.saving.waiting and table.saving.held is not None)
        assert not ana.game.finished  # held: shown to nobody
        before = disk.syncs
        disk.heal()
        await wait_until(lambda: ana.game is not None and ana.game.finished)
        await wait_until(lambda: table.state == "finished")
        assert disk.syncs > before  # the end was flushed once the disk took it
        assert disk.on_loop == 0, "a flush ran on the event loop"
        _header, events, end, torn = host.store.read_game(next((tmp_path / "games").glob("*")))
        assert end is not None and events == ana.events and torn == 0
        await ana.close()


def test_an_event_packed_once_gives_the_bytes_encoding_it_would():
    """The log's record and the frames to the members and to the sender are put together from
    the event's fields packed once (protocol/framing.py frame_of): byte for byte what
    encoding each whole map gives, so the log's hash and signature and the wire are as before."""
    from protocol.framing import encode, frame_of, map_entries
    from protocol.gamelog import record_bytes

    events = [
        {"seq": 1, "t": 1_700_000_000_000, "seat": 0, "action": {"type": "roll", "hold": []}},
        {"seq": 70000, "t": 5, "seat": HOST, "action": {"type": "timeout"}, "chance": [[3, 6]]},
    ]
    for event in events:
        entries = map_entries(event)
        count = len(event) + 1
        head = map_entries({"type": "event"})
        assert frame_of(count, head, entries) == encode({"type": "event", **event})
        seed = map_entries({"server_seed": b"\x01" * 32})
        assert frame_of(count + 2, head, entries, seed, map_entries({"re": 300})) == encode(
            {"type": "event", **event, "server_seed": b"\x01" * 32, "re": 300}
        )
        record = frame_of(count, map_entries({"kind": "event"}), entries, max_frame=None)
        assert record == record_bytes({"kind": "event", **event})
    wide = {f"field{i}": i for i in range(20)}  # past a fixmap's 15 entries
    assert frame_of(20, map_entries(wide)) == encode(wide)
