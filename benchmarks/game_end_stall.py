"""How long a game's end stalls the host's event loop, with 5,000 finished logs kept.

    python benchmarks/game_end_stall.py [--kept 5000] [--games 5] [--root DIR]

An in-process Host (127.0.0.1, port 0) keeps `--kept` finished logs (`--keep-games` the
same), its games folder filled with that many small logs first, so every game end has the
whole folder to prune. A real client plays solo dice games to their end over TCP; a
loop-lag probe (a callback asking to run every 0.5 ms) records how late it runs, and how
much CPU time the loop's thread spent since its last run. Two figures per game end, from
its last move until 300 ms after the client saw the game finished (the end record's write
and fsync, the table file's removal, the prune; since the records, handing the game to
their thread, which indexes it and prunes through the index):
- the longest lag (wall clock): what a player waits, the machine's own noise included. So
  the same probe also measures an idle stretch as long, beside each game: the noise floor.
- the longest stretch of the loop thread's CPU time between two probe runs: the work that
  held the loop, without the time the OS gave other processes (on a shared machine the wall
  clock alone cannot tell a host that blocks from a host that was not scheduled).

The same games run twice in the process: with an empty games folder (the baseline: nothing
to prune) and with `--kept` logs; it prints medians over `--games` game ends, and the
worst. `--root DIR` runs the host's code from another source tree (say, the code before a
change, unpacked with `git archive`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE_EVERY_S = 0.0005
AFTER_END_S = 0.3


class LagProbe:
    """Asks the loop to run it every PROBE_EVERY_S; remembers how late each run was."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float, float]] = []  # (when, ms late, ms of CPU since)
        self._due = 0.0
        self._cpu = 0.0
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._due = time.perf_counter() + PROBE_EVERY_S
        self._cpu = time.thread_time()
        self._handle = asyncio.get_running_loop().call_later(PROBE_EVERY_S, self._run)

    def _run(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.samples.append((now, (now - self._due) * 1000, (cpu - self._cpu) * 1000))
        self._due, self._cpu = now + PROBE_EVERY_S, cpu
        self._handle = asyncio.get_running_loop().call_later(PROBE_EVERY_S, self._run)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()

    def worst_between(self, start: float, end: float) -> tuple[float, float]:
        """(longest lag, longest CPU stretch) of the runs between `start` and `end`."""
        window = [(late, cpu) for when, late, cpu in self.samples if start <= when <= end]
        return (
            max((late for late, _cpu in window), default=0.0),
            max((cpu for _late, cpu in window), default=0.0),
        )


def fill(games: Path, count: int) -> None:
    games.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (games / f"20250101-{n:06d}-table{n + 1}-dice.kismet").write_bytes(b"\x00" * 64)


def records_drained(records) -> None:
    """Wait until the records' worker has done everything queued before this call."""
    import threading

    done = threading.Event()
    records.ask(lambda db: None, lambda _answer: done.set())
    done.wait(30)


async def paced(call):
    from kismet_tui.net.client import RequestError

    while True:
        try:
            return await call()
        except RequestError as exc:
            if exc.code != "slow_down":
                raise
            await asyncio.sleep(0.1)


async def game_end_stalls(state_dir: Path, kept: int, games: int) -> list[tuple[float, ...]]:
    """Per game: (lag at its end, CPU stretch at its end, lag over an idle stretch as long)."""
    from kismet_tui.net import Client
    from server import Host

    host = Host(state_dir=state_dir, keep_games=kept)
    await host.start("127.0.0.1", 0)
    probe = LagProbe()
    stalls = []
    client = Client(reconnect=False)
    try:
        assert host.port is not None
        await client.connect("127.0.0.1", host.port, "Ana")
        await client.create_table("dice")
        probe.start()
        for _ in range(games):
            await paced(client.start)
            while client.game is None or client.game.finished or client.table["state"] != "playing":
                await asyncio.sleep(0.005)
            while True:
                await paced(lambda: client.act({"type": "roll", "hold": []}))
                if sum(1 for box in client.game.cards[client.seat].values() if box is None) == 1:
                    break  # the next score ends the game
                await paced(lambda: client.act({"type": "score", "box": client.game.best_box()}))
            last_move = time.perf_counter()
            await paced(lambda: client.act({"type": "score", "box": client.game.best_box()}))
            deadline = time.monotonic() + 10
            while client.table["state"] != "finished" and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
            await asyncio.sleep(AFTER_END_S)
            if host.store.__dict__.get("last_prune") is not None:  # (older code: its prune)
                await asyncio.wrap_future(host.store.last_prune)
            records = host.__dict__.get("records")
            if records is not None:  # (the records take the game in, and prune, on their thread)
                await asyncio.to_thread(records_drained, records)
            ended = time.perf_counter()
            await asyncio.sleep(ended - last_move)  # nothing happens: the noise floor
            idle_lag, _ = probe.worst_between(ended, time.perf_counter())
            stalls.append((*probe.worst_between(last_move, ended), idle_lag))
    finally:
        probe.stop()
        await client.close()
        await host.stop()
    return stalls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kept", type=int, default=5000)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--root", type=Path, default=ROOT, help="source tree to run the host from")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    results = {}
    for label, count in (("empty folder", 0), (f"{args.kept} kept", args.kept)):
        with tempfile.TemporaryDirectory() as state_dir:
            fill(Path(state_dir) / "games", count)
            results[label] = asyncio.run(
                game_end_stalls(Path(state_dir), max(args.kept, 1), args.games)
            )
    for label, stalls in results.items():
        lag, cpu, idle = ([s[k] for s in stalls] for k in range(3))
        print(
            f"game end, {label:12}: loop lag median {statistics.median(lag):6.2f} ms "
            f"(worst {max(lag):6.2f}; idle floor {statistics.median(idle):5.2f}, worst "
            f"{max(idle):5.2f})   loop CPU stretch median {statistics.median(cpu):5.2f} ms "
            f"(worst {max(cpu):5.2f})"
        )
    print(f"({args.games} games each; host from {args.root})")


if __name__ == "__main__":
    main()
