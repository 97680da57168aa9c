"""An honest player's ping while 200 connections flood a real kismet-host with `digest`.

    python benchmarks/host_flood.py [--flooders 200] [--seconds 8] [--runs 3]
                                    [--pattern burst|steady] [--root DIR]

A `kismet-host` process (on 127.0.0.1, --no-announce, a temporary state folder) serves:
- the flooders, in a process of their own: each says hello, opens a solo dice table, starts
  its game, then sends `digest` for event 0 with a wrong digest (so every one is answered
  `desync` and the whole game) as fast as the rate limit lets it, never refused, never
  closed, reading everything it is sent: `--pattern burst` (the default, the worst case)
  sends the bucket's whole burst, 80, every 2 s (the time the bucket takes to fill again),
  every flooder at once; `steady` sends 4 every 100 ms (40 a second);
- one honest player, in this process, sending `ping` 20 times a second and timing each
  `pong` (write to receipt).

Each run measures the pinger alone for `--seconds` (the baseline, same host, same process),
then with the flood running; it prints ping p50/p99/max for both and the p99 ratio, medians
over `--runs` runs. Bounded: at most `--flooders` connections, `--seconds` per phase, every
wait has a timeout. `--root DIR` runs the host from another source tree (say, the code
before a change, unpacked with `git archive`), so before and after come from one script.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol import PROTOCOL_VERSION  # noqa: E402

_LEN = struct.Struct(">I")
# (messages at once, seconds between): the bucket's burst as it refills, or its rate.
PATTERNS = {"burst": (80, 2.0), "steady": (4, 0.1)}
PING_EVERY_S = 0.05


def frame(message: dict) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return _LEN.pack(len(body)) + body


class Peer(asyncio.Protocol):
    """A bare client: frames cut out as they arrive, each handed to `on_message`."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.waiting: dict[str, asyncio.Future] = {}
        self.on_message = None
        self.lost = asyncio.get_running_loop().create_future()

    def connection_made(self, transport) -> None:
        self.transport = transport

    def connection_lost(self, exc) -> None:
        if not self.lost.done():
            self.lost.set_result(None)

    def data_received(self, data: bytes) -> None:
        received = time.perf_counter()
        self.buffer += data
        start = 0
        while len(self.buffer) - start >= 4:
            (length,) = _LEN.unpack_from(self.buffer, start)
            end = start + 4 + length
            if len(self.buffer) < end:
                break
            message = msgpack.unpackb(bytes(self.buffer[start + 4 : end]), raw=False)
            start = end
            future = self.waiting.pop(message.get("type"), None)
            if future is not None and not future.done():
                future.set_result(message)
            if self.on_message is not None:
                self.on_message(received, message)
        del self.buffer[:start]

    def send(self, message: dict) -> None:
        assert self.transport is not None
        self.transport.write(frame(message))

    async def ask(self, message: dict, answer: str, timeout: float = 20.0) -> dict:
        future = asyncio.get_running_loop().create_future()
        self.waiting[answer] = future
        self.send(message)
        return await asyncio.wait_for(future, timeout)


async def open_peer(port: int, name: str) -> Peer:
    _transport, peer = await asyncio.get_running_loop().create_connection(Peer, "127.0.0.1", port)
    await peer.ask({"type": "hello", "version": PROTOCOL_VERSION, "name": name}, "welcome")
    return peer


# ---- the flooders (their own process) --------------------------------------------------------


async def flood(port: int, count: int, pattern: str, ready, stop) -> None:
    peers = []
    for n in range(count):
        peer = await open_peer(port, f"Flood {n}")
        await peer.ask(
            {"type": "create_table", "ruleset": "dice", "options": {}, "bots": 0, "id": 1}, "ok"
        )
        await peer.ask({"type": "start", "id": 2}, "game")
        peers.append(peer)
    ready.set()
    wrong = {"type": "digest", "seq": 0, "digest": "0" * 64}
    size, every = PATTERNS[pattern]
    burst = b"".join(frame({**wrong, "id": n}) for n in range(size))
    while not stop.is_set():
        for peer in peers:
            if peer.transport is not None and not peer.transport.is_closing():
                peer.transport.write(burst)
        await asyncio.sleep(every)
    for peer in peers:
        if peer.transport is not None:
            peer.transport.close()


def flood_process(port: int, count: int, pattern: str, ready, stop) -> None:
    asyncio.run(flood(port, count, pattern, ready, stop))


# ---- the honest pinger -----------------------------------------------------------------------


async def ping_for(port: int, seconds: float) -> list[float]:
    """Round trips (ms) of a ping every PING_EVERY_S for `seconds`."""
    peer = await open_peer(port, "Honest")
    sent: dict[int, float] = {}
    times: list[float] = []

    def on_message(received: float, message: dict) -> None:
        if message.get("type") == "pong" and message.get("re") in sent:
            times.append((received - sent.pop(message["re"])) * 1000)

    peer.on_message = on_message
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        sent[n] = time.perf_counter()
        peer.send({"type": "ping", "id": n})
        await asyncio.sleep(PING_EVERY_S)
    deadline = time.monotonic() + 10
    while sent and time.monotonic() < deadline:  # the last answers, bounded
        await asyncio.sleep(0.01)
    assert peer.transport is not None
    peer.transport.close()
    return times


def figures(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered), p99, ordered[-1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_host(root: Path, state_dir: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(root))
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
            state_dir,
            "--bots",
            "0",
            "--no-announce",
            "--log-level",
            "WARNING",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("kismet-host did not start listening")


def one_run(root: Path, flooders: int, seconds: float, pattern: str) -> tuple[tuple, tuple]:
    with tempfile.TemporaryDirectory() as state_dir:
        proc, port = start_host(root, state_dir)
        try:
            alone = figures(asyncio.run(ping_for(port, seconds)))
            ready, stop = multiprocessing.Event(), multiprocessing.Event()
            flooding = multiprocessing.Process(
                target=flood_process, args=(port, flooders, pattern, ready, stop)
            )
            flooding.start()
            if not ready.wait(120):
                raise SystemExit("the flooders did not get their tables in time")
            flooded = figures(asyncio.run(ping_for(port, seconds)))
            stop.set()
            flooding.join(20)
            if flooding.is_alive():
                flooding.kill()
        finally:
            proc.kill()
            proc.wait(10)
    return alone, flooded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flooders", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pattern", choices=sorted(PATTERNS), default="burst")
    parser.add_argument("--root", type=Path, default=ROOT, help="source tree to run the host from")
    args = parser.parse_args()
    results = [
        one_run(args.root, args.flooders, args.seconds, args.pattern) for _ in range(args.runs)
    ]
    for label, index in (("alone", 0), ("flooded", 1)):
        p50, p99, worst = (statistics.median(r[index][k] for r in results) for k in range(3))
        print(f"ping {label:8} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   max {worst:7.2f} ms")
    ratio = statistics.median(r[1][1] / r[0][1] for r in results)
    print(
        f"p99 flooded / alone: {ratio:.1f}x  ({args.flooders} flooders, {args.pattern}, {args.runs} runs, "
        f"host from {args.root})"
    )


if __name__ == "__main__":
    main()
