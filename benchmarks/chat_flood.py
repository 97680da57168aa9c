"""A seated player's key and memory while watchers flood the table's chat (issue 28, attack 1).

    python benchmarks/chat_flood.py [--baseline DIR] [--watchers 8] [--rate 38] [--seconds 20]

For each tree (this one, then --baseline DIR's: another checkout, such as main unpacked with
`git archive main | tar -x -C DIR`), one after the other in the same run:
- a `kismet-host` from that tree on 127.0.0.1 (--no-announce, a temporary state folder, no
  bots);
- the player: that tree's `kismet-join` on a pty of 80x24 (server/doors/pty_app.py, as the ssh door
  runs it, under the session's memory limit), which opens a solo dice table and throws
  (n, enter, g, r);
- the flood, in a process of its own: `--watchers` raw protocol-3 connections, each sitting
  at that table as a watcher and sending chat lines of 200 characters at `--rate` a second
  (under the host's 40 messages a second per connection, so the connection rate limit never
  stops them) for `--seconds`, reading everything they are sent;
- meanwhile the player presses `1` every 0.5 s or so, a hold then its release: each hold is
  timed from the key's write to the screen showing "1 HELD" (a press not answered within
  10 s counts as lost, and the next one is tried).

Printed per tree: the app's PSS (from /proc) before the flood, its largest during it, at its
end, and its growth per minute; the hold's p50/p99/max and how many were answered within
100 ms; the chat lines the watchers sent and the ones the host refused them. Bounded: at most
`--watchers` connections and `--seconds` of flood per tree; every wait has a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.host_flood import Peer, frame  # noqa: E402
from benchmarks.ssh_sessions import SETUP, Output, free_port, pss_kb  # noqa: E402
from protocol import PROTOCOL_VERSION  # noqa: E402
from server.doors.pty_app import PtyApp  # noqa: E402

LINE = ("The dice are cold tonight and so is the tea; " * 5)[:200]
PRESS_EVERY_S = 0.5
LOST_AFTER_S = 10.0


# ---- the flood (its own process) ---------------------------------------------------------------


async def flood(port: int, watchers: int, rate: float, seconds: float, ready, counts) -> None:
    loop = asyncio.get_running_loop()
    peers: list[Peer] = []
    refused = [0]

    def heard(_received: float, message: dict) -> None:
        if message.get("type") == "error" and message.get("code") != "slow_down":
            refused[0] += 1

    for n in range(watchers):
        _transport, peer = await loop.create_connection(Peer, "127.0.0.1", port)
        await peer.ask(
            {"type": "hello", "version": PROTOCOL_VERSION, "name": f"Watcher {n}"}, "welcome"
        )
        tables = (await peer.ask({"type": "list_tables", "id": 1}, "tables"))["tables"]
        await peer.ask(
            {"type": "join_table", "table": tables[0]["id"], "spectator": True, "id": 2}, "ok"
        )
        peer.on_message = heard
        peers.append(peer)
    ready.set()
    sent = 0
    start = time.monotonic()
    every = 1.0 / rate
    tick = 0
    while time.monotonic() - start < seconds:
        tick += 1
        for peer in peers:
            if peer.transport is not None and not peer.transport.is_closing():
                peer.transport.write(frame({"type": "chat", "text": f"{tick} {LINE}"[:200]}))
                sent += 1
        await asyncio.sleep(max(0.0, start + tick * every - time.monotonic()))
    counts.put((sent, refused[0]))
    for peer in peers:
        if peer.transport is not None:
            peer.transport.close()


def flood_process(port: int, watchers: int, rate: float, seconds: float, ready, counts) -> None:
    asyncio.run(flood(port, watchers, rate, seconds, ready, counts))


# ---- the player ----------------------------------------------------------------------------------


async def press_loop(app: PtyApp, out: Output, until: float) -> tuple[list[float], int]:
    """Hold and release die 1 until `until` (monotonic): the holds' times (ms), and how many
    were not answered within LOST_AFTER_S."""
    times: list[float] = []
    lost = 0
    while time.monotonic() < until:
        await asyncio.sleep(PRESS_EVERY_S)
        since = len(out.data)
        start = time.perf_counter()
        app.write(b"1")
        try:
            await out.wait_for(b"1 HELD", since, LOST_AFTER_S)
        except TimeoutError:
            lost += 1
            continue
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(PRESS_EVERY_S)
        since = len(out.data)
        app.write(b"1")  # the release: waited for (any redraw), not timed
        deadline = time.monotonic() + LOST_AFTER_S
        while len(out.data) == since and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
    return times, lost


async def watch_memory(pid: int, samples: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        kb = pss_kb(pid)
        if kb:
            samples.append(kb)
        try:
            await asyncio.wait_for(stop.wait(), 0.5)
        except TimeoutError:
            pass


async def run_tree(label: str, tree: Path, args: argparse.Namespace) -> None:
    state = tempfile.mkdtemp(prefix="kismet-bench-")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    host = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            state,
            "--bots",
            "0",
            "--no-announce",
            "--log-level",
            "WARNING",
        ],
        cwd=state,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    app: PtyApp | None = None
    flooder: multiprocessing.Process | None = None
    try:
        while "listening" not in (line := host.stdout.readline()):
            if not line:
                raise SystemExit(f"{label}: kismet-host did not start")
        out = Output()
        ended: list[int] = []
        # The app imports from PYTHONPATH, read when its environment is made, and not from
        # the current folder, which comes first on its path: so not this script's tree.
        os.environ["PYTHONPATH"] = str(tree)
        os.chdir(state)
        app = PtyApp(
            [f"127.0.0.1:{port}", "--name", "Player", "--fresh"],
            term="xterm-256color",
            cols=80,
            rows=24,
            on_output=out.feed,
            on_exit=ended.append,
        )
        await app.start()
        await out.wait_for(b"Tables", 0, 120)
        for keys, words in SETUP:
            since = len(out.data)
            app.write(keys)
            await out.wait_for(words, since, 120)
        await asyncio.sleep(2.0)  # the first redraws, the solver's tables loading
        pid = app.pid
        quiet_kb = pss_kb(pid)
        context = multiprocessing.get_context("spawn")
        ready, counts = context.Event(), context.Queue()
        flooder = context.Process(
            target=flood_process,
            daemon=True,
            args=(port, args.watchers, args.rate, args.seconds, ready, counts),
        )
        flooder.start()
        if not await asyncio.to_thread(ready.wait, 60):
            raise SystemExit(f"{label}: the watchers did not sit down")
        samples: list[int] = []
        stop = asyncio.Event()
        watcher = asyncio.create_task(watch_memory(pid, samples, stop))
        began = time.monotonic()
        times, lost = await press_loop(app, out, began + args.seconds)
        stop.set()
        await watcher
        flood_s = time.monotonic() - began
        end_kb = pss_kb(pid) if not ended else 0
        sent, refused = await asyncio.to_thread(counts.get, True, 30)
        times.sort()
        within = sum(1 for t in times if t <= 100)
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else float("nan")
        growth = (max(samples or [quiet_kb]) - quiet_kb) / 1024
        print(f"{label} ({tree}):")
        print(
            f"  flood: {args.watchers} watchers x {args.rate:g} lines/s for {flood_s:.0f} s: "
            f"{sent} lines sent, {refused} refused by the host"
        )
        if times:
            print(
                f"  key (hold, to the screen): p50 {statistics.median(times):.0f} ms, p99 {p99:.0f} ms, "
                f"max {times[-1]:.0f} ms; {within} of {len(times) + lost} within 100 ms, "
                f"{lost} not answered within {LOST_AFTER_S:.0f} s"
            )
        else:
            print(f"  key (hold): none of {lost} presses answered within {LOST_AFTER_S:.0f} s")
        print(
            f"  app memory (PSS): {quiet_kb / 1024:.1f} MiB before, largest "
            f"{max(samples or [0]) / 1024:.1f} MiB, {end_kb / 1024:.1f} MiB at the end: "
            f"+{growth:.1f} MiB, {growth * 60 / flood_s:.1f} MiB a minute"
            + (f"; the app ENDED (exit {ended[0]})" if ended else "")
        )
    finally:
        if flooder is not None:
            flooder.join(10)
            if flooder.is_alive():
                flooder.terminate()
        if app is not None:
            await app.close()
        host.terminate()
        try:
            host.wait(10)
        except subprocess.TimeoutExpired:
            host.kill()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="another checkout to measure after this one (say, main)",
    )
    parser.add_argument("--watchers", type=int, default=8)
    parser.add_argument("--rate", type=float, default=38.0, help="chat lines a second per watcher")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the flood")
    args = parser.parse_args()
    trees = {"this tree": ROOT}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    for label, tree in trees.items():
        await run_tree(label, tree, args)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    asyncio.run(main())
