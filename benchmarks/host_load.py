"""Load on a host: N tables x M bot-like clients over loopback, beside a bare relay.

    python benchmarks/host_load.py [--tables 50] [--clients 4] [--modes paced,saturated]
                                   [--paced-seconds 16] [--saturated-seconds 6]
                                   [--interval-ms 100] [--lockstep] [--runs 3]
                                   [--baseline DIR] [--profile FILE]

For each table, M raw TCP clients play dice (one replica per table decides the next move,
so client work stays small). Two paces, each measured against the host and the relay:
- `paced`: the seat to move sends its action some time after member 0 saw the previous
  event: by default a jittered interval, uniform in [0.5, 1.5] x `interval-ms` from a
  per-table seeded RNG, so tables drift out of phase as real tables do and runs stay
  comparable. `--lockstep` keeps the exact interval for every table: all tables then fire
  in the same millisecond, so the host gets bursts of N actions and every receipt queues
  behind the burst; that is a worst case, not a typical load. A dice game of 4 is about
  104 events, some 10 s at this pace: the default 16 s window holds every table's game end
  and the rematch after it (the host signs, syncs and closes the log, removes the table
  file, and starts and syncs the next game's), which a shorter window never times.
- `saturated`: the next action goes as soon as member 0 has the previous event, so the
  figure is what the server can do; games end and rematch every second or so. The host's
  pace limit per connection (40 messages a second, protocol/limits.py) would otherwise
  refuse the load, not measure it, so for this pace the host runs with it lifted (the
  token bucket is still consulted for every message; only its size changes).

Measured: events per second, the latency from the sender's write to each member's receipt
(every receipt, and the slowest member per event), p50/p99 and the worst, and the server
process's CPU time (user + system, from /proc) per event over the same window. A receipt
is stamped when the bytes reach the client's protocol (`data_received`), before they are
decoded and before any other client's work is scheduled, so the figure is the host's and
the kernel's, not this process's queue of 200 stream readers waking up one after another
(the first version of this script read with StreamReader.readexactly and measured mostly
itself).

The same clients then run against a bare asyncio relay (no engine, no log, no validation:
read a frame, stamp seq and time, write it to the table's members; reading in an
asyncio.Protocol like the host) serving the same frames: the floor for a Python relay here.
Host and relay each run in their own process, on the same event loop (uvloop when it is
installed, as `kismet-host` does); the clients share this one. The host is a real
`kismet-host` (bound to 127.0.0.1, --no-announce, a temporary state folder). The script
prints the host's figures, the relay's, and their ratio, as medians over `--runs` runs;
each run measures the host and then the relay back to back. Other work on the machine moves
p99 by a millisecond or more between invocations: compare host and relay of the same
invocation; `--baseline DIR` adds a third server to each run, the host from another source
tree (say, the code before a change, unpacked with `git archive`), so before, after and the
relay come from one invocation. `--profile FILE` then runs this host once more at the first
pace under cProfile (the real kismet-host under the same load: reading, checking, stamping,
chance, the log, encoding, sending, digests), writes the stats to FILE and prints the host's
functions by cumulative time. Bounded: at most N x M connections, each window its given
seconds, every wait for a server a timeout.

What bounds the figures on a small VM (2 vCPUs, clients and host sharing them): each
loopback write that wakes a reader on the other CPU costs tens of microseconds, and a host
event is one log write and M such writes; a CPU woken from idle runs the host's Python
several times slower than a warm loop does; and a few events that arrive within the same
millisecond queue behind each other, which is what p99 sees.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
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

from kismet_tui.rules import apply_event, replay  # noqa: E402
from protocol import PROTOCOL_VERSION, encode  # noqa: E402

_LEN = struct.Struct(">I")


def cut_frames(buffer: bytearray) -> list[dict]:
    """Decode every whole frame at the start of `buffer` and remove them from it (the relay
    and the clients read the same bare way: length, then one msgpack map)."""
    messages, start = [], 0
    while len(buffer) - start >= 4:
        (length,) = _LEN.unpack_from(buffer, start)
        end = start + 4 + length
        if len(buffer) < end:
            break
        messages.append(msgpack.unpackb(bytes(buffer[start + 4 : end]), raw=False))
        start = end
    del buffer[:start]
    return messages


def new_event_loop_policy() -> str:
    """Use uvloop when it is installed, like kismet-host; returns the loop's name."""
    try:
        import uvloop
    except ImportError:
        return "asyncio"
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


# ---- the bare relay (its own process) --------------------------------------------------------


async def relay_main(port: int) -> None:
    """Read a frame, stamp seq and time, write it to the table's members. It reads in its
    protocol's data_received, as kismet-host does, so the two differ only in what they do
    with a message."""
    tables: dict[int, list] = {}
    seqs: dict[int, int] = {}

    class Relay(asyncio.Protocol):
        def connection_made(self, transport):
            self.transport, self.buffer, self.table, self.seat = transport, bytearray(), None, None

        def data_received(self, data):
            self.buffer += data
            for msg in cut_frames(self.buffer):
                if msg["type"] == "join":
                    self.table, self.seat = msg["table"], msg["seat"]
                    tables.setdefault(self.table, []).append(self.transport)
                    seqs.setdefault(self.table, 0)
                    continue
                seqs[self.table] += 1
                frame = encode(
                    {
                        "type": "event",
                        "seq": seqs[self.table],
                        "t": int(time.time() * 1000),
                        "seat": self.seat,
                        "action": msg["action"],
                    }
                )
                for member in tables[self.table]:
                    member.write(frame)

    server = await asyncio.get_running_loop().create_server(Relay, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


# ---- the load ------------------------------------------------------------------------------------


class Conn(asyncio.Protocol):
    """One client connection. Frames are cut out of `data_received` and handed to
    `on_message(received_at, message)` at once: no reader task to wake per frame."""

    def __init__(self):
        self.transport = None
        self.buffer = bytearray()
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.on_message = None  # set once the load runs; until then messages queue up

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        received_at = time.perf_counter()
        self.buffer += data
        for message in cut_frames(self.buffer):
            if self.on_message is not None:
                self.on_message(received_at, message)
            else:
                self.inbox.put_nowait(message)

    def send(self, message: dict) -> None:
        self.transport.write(encode(message))

    async def recv(self) -> dict:
        return await self.inbox.get()


async def open_conn(port: int) -> Conn:
    _, conn = await asyncio.get_running_loop().create_connection(Conn, "127.0.0.1", port)
    conn.transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


async def request(conn: Conn, message: dict, until: str) -> dict:
    conn.send(message)
    while True:
        reply = await conn.recv()
        if reply["type"] == "error":
            raise RuntimeError(reply["words"])
        if reply["type"] == until:
            return reply


class TableLoad:
    """One table: M connections, one replica deciding the next move."""

    def __init__(self, index, conns, interval_s, lockstep, stats, relay_header=None):
        self.index = index
        self.conns = conns
        self.interval_s = interval_s
        self.lockstep = lockstep
        self.rng = random.Random(f"host-load-{index}")  # same pace in every run
        self.stats = stats
        self.game = None
        self.sent_at: dict[int, float] = {}
        self.received: dict[int, int] = {}
        self.slowest: dict[int, float] = {}
        self.next_seq = 1
        self.relay_header = relay_header
        self.stop = False
        self.awaiting_ready = False  # a rematch: start once the table shows every seat ready

    def start_game(self, header):
        self.game = replay(header, [])
        self.next_seq = 1
        self.schedule()

    def schedule(self):
        if self.stop or self.game.finished:
            return
        seat = self.game.current
        action = (
            {"type": "roll", "hold": []}
            if self.game.rolls == 0
            else {"type": "score", "box": self.game.best_box()}
        )
        if self.interval_s == 0:  # saturated: at once
            asyncio.get_running_loop().call_soon(self.send, seat, action)
            return
        delay = self.interval_s if self.lockstep else self.interval_s * self.rng.uniform(0.5, 1.5)
        asyncio.get_running_loop().call_later(delay, self.send, seat, action)

    def send(self, seat, action):
        if self.stop:
            return
        self.sent_at[self.next_seq] = time.perf_counter()
        self.conns[seat].send({"type": "act", "action": action})

    def on_message(self, member: int, received_at: float, message: dict):
        kind = message["type"]
        if kind == "event":
            self.on_event(member, received_at, message)
        elif kind == "game" and member == 0:
            self.start_game(message["header"])
        elif kind == "table" and member == 0 and self.awaiting_ready:
            seats = message["table"]["seats"]
            if all(seat["ready"] for seat in seats[1:]):  # the owner starts, unready
                self.awaiting_ready = False
                self.ask_start()
        elif kind == "error" and message.get("code") == "slow_down":
            self.stats["slow_down"] += 1
        elif kind == "error" and message.get("code") == "not_ready" and member == 0:
            # A rematch's start overtook a ready on another connection (a busy machine):
            # ask again, or the table stalls and its connections go idle.
            asyncio.get_running_loop().call_later(0.05, self.ask_start)

    def on_event(self, member: int, received_at: float, event: dict):
        seq = event["seq"]
        sent = self.sent_at.get(seq)
        if sent is not None:
            latency = received_at - sent
            self.stats["receipts"].append(latency)
            self.slowest[seq] = max(self.slowest.get(seq, 0.0), latency)
        self.received[seq] = self.received.get(seq, 0) + 1
        if self.received[seq] == len(self.conns):
            self.stats["events"] += 1
            if seq in self.slowest:
                self.stats["slowest"].append(self.slowest.pop(seq))
            self.sent_at.pop(seq, None)
            del self.received[seq]
        if member == 0:
            # The replica's work waits until the other members' bytes, read in the same
            # turn of the loop, have been stamped: it must not be counted as their latency.
            asyncio.get_running_loop().call_soon(self.follow, event)

    def follow(self, event: dict):
        """The replica follows the owner's stream and picks the next move."""
        apply_event(self.game, event)  # with the chance the event revealed (protocol 2)
        self.next_seq = event["seq"] + 1
        if self.game.finished:
            self.stats["games"] += 1
            self.rematch()
        else:
            self.schedule()

    def rematch(self):  # (it awaits nothing: no task to keep)
        if self.relay_header is not None:
            self.start_game(self.relay_header)
            return
        # The readies go on other connections than the start: the owner starts when the
        # table it is sent shows them all (waiting for the host, not for a guessed pause).
        self.awaiting_ready = True
        for conn in self.conns[1:]:
            conn.send({"type": "ready", "ready": True, "entropy": os.urandom(16)})

    def ask_start(self):
        if not self.stop:
            self.conns[0].send({"type": "start", "entropy": os.urandom(16)})


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run_load(
    port: int,
    pid: int,
    kind: str,
    tables: int,
    clients: int,
    seconds: float,
    interval_ms: int,
    lockstep: bool,
) -> dict:
    stats = {"receipts": [], "slowest": [], "events": 0, "games": 0, "slow_down": 0}
    loads = []
    header = {
        "ruleset": "dice",
        "seats": [f"p{i}" for i in range(clients)],
        "seed": b"benchmark-seed!!",
        "options": {},
        "t0": 0,
    }
    for index in range(tables):
        conns = [await open_conn(port) for _ in range(clients)]
        load = TableLoad(
            index,
            conns,
            interval_ms / 1000,
            lockstep,
            stats,
            relay_header=header if kind == "relay" else None,
        )
        if kind == "host":
            for seat, conn in enumerate(conns):
                await request(
                    conn,
                    {"type": "hello", "version": PROTOCOL_VERSION, "name": f"t{index}s{seat}"},
                    "welcome",
                )
            table = (
                await request(
                    conns[0], {"type": "create_table", "ruleset": "dice", "id": 1}, "table"
                )
            )["table"]
            await request(conns[0], {"type": "ping", "id": 2}, "pong")  # the ok of create
            for conn in conns[1:]:
                await request(conn, {"type": "join_table", "table": table["id"], "id": 1}, "ok")
                await request(conn, {"type": "ready", "id": 2, "entropy": os.urandom(16)}, "ok")
        else:
            for seat, conn in enumerate(conns):
                conn.send({"type": "join", "table": index, "seat": seat})
        loads.append(load)
    await asyncio.sleep(0.2)
    for load in loads:
        for member, conn in enumerate(load.conns):
            while not conn.inbox.empty():  # lobby chatter from the set-up
                conn.inbox.get_nowait()
            conn.on_message = lambda received_at, message, load=load, member=member: (
                load.on_message(member, received_at, message)
            )
        if kind == "host":
            load.conns[0].send({"type": "start", "entropy": os.urandom(16)})
        else:
            load.start_game(header)
    await asyncio.sleep(1.0)  # warm-up
    for key in ("receipts", "slowest"):
        stats[key].clear()
    stats["events"] = stats["games"] = 0
    began, cpu_began = time.perf_counter(), cpu_seconds(pid)
    await asyncio.sleep(seconds)
    elapsed, cpu = time.perf_counter() - began, cpu_seconds(pid) - cpu_began
    for load in loads:
        load.stop = True
    result = summarize(stats, elapsed, cpu)
    for load in loads:
        for conn in load.conns:
            conn.transport.close()
    await asyncio.sleep(0.05)
    return result


def pct(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def summarize(stats, elapsed, cpu):
    return {
        "events_per_s": stats["events"] / elapsed,
        "p50": pct(stats["receipts"], 0.50),
        "p99": pct(stats["receipts"], 0.99),
        "worst": max(stats["receipts"], default=float("nan")) * 1000,
        "slowest_p50": pct(stats["slowest"], 0.50),
        "slowest_p99": pct(stats["slowest"], 0.99),
        "cpu_us": cpu / stats["events"] * 1e6 if stats["events"] else float("nan"),
        "games": stats["games"],
        "slow_down": stats["slow_down"],
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def host_launch(unpaced: bool, profile: str | None) -> list[str]:
    """How python starts kismet-host: as `-m server.cli`; or, with its pace limit per
    connection lifted (the saturated pace) or under cProfile (its stats written to `profile`
    once it is stopped), from a few lines of code around the same main()."""
    if not unpaced and profile is None:
        return ["-m", "server.cli"]
    code = "import sys\n"
    if unpaced:
        code += "from protocol import limits\nlimits.RATE_PER_SECOND = limits.RATE_BURST = 10**9\n"
    code += "from server.cli import main\n"
    if profile is None:
        return ["-c", code + "sys.exit(main(sys.argv[1:]))\n"]
    return [
        "-c",
        code
        + (
            "import cProfile\nprofiler = cProfile.Profile()\nprofiler.enable()\n"
            "try:\n    main(sys.argv[1:])\nfinally:\n    profiler.disable()\n"
            f"    profiler.dump_stats({profile!r})\n"
        ),
    ]


def spawn(
    kind: str,
    port: int,
    state_dir: str,
    extra=(),
    unpaced: bool = False,
    root: Path = ROOT,
    profile: str | None = None,
) -> subprocess.Popen:
    """The host (`extra`: more kismet-host options; `root`: the source tree it runs from;
    `profile`: a file for its cProfile stats) or the bare relay, listening on `port`."""
    env = dict(os.environ, PYTHONPATH=str(root))
    if kind == "host":
        launch = host_launch(unpaced, profile)
        cmd = [
            sys.executable,
            *launch,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-announce",
            "--state-dir",
            state_dir,
            "--bots",
            "0",
            "--log-level",
            "WARNING",
            *extra,
        ]
    else:
        cmd = [sys.executable, __file__, "--serve-relay", str(port)]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{kind} did not start")


def kinds(args) -> list[str]:
    """The servers each run measures: this host, the baseline's (if given), the relay."""
    return ["host", *(["before"] if args.baseline else []), "relay"]


def measure(args, mode: str) -> dict:
    """Medians over the runs of one pace, for the host and the relay."""
    paced = mode == "paced"
    seconds = args.paced_seconds if paced else args.saturated_seconds
    interval_ms = args.interval_ms if paced else 0
    figures: dict[str, list[dict]] = {kind: [] for kind in kinds(args)}
    for _run in range(args.runs):
        for kind in figures:
            with tempfile.TemporaryDirectory() as state_dir:
                port = free_port()
                server = "relay" if kind == "relay" else "host"
                proc = spawn(
                    server,
                    port,
                    state_dir,
                    unpaced=not paced,
                    root=args.baseline if kind == "before" else ROOT,
                )
                try:
                    figures[kind].append(
                        asyncio.run(
                            run_load(
                                port,
                                proc.pid,
                                server,
                                args.tables,
                                args.clients,
                                seconds,
                                interval_ms,
                                args.lockstep,
                            )
                        )
                    )
                finally:
                    proc.terminate()
                    proc.wait(10)
    return {
        kind: {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        for kind, runs in figures.items()
    }


def profile_host(args, mode: str) -> None:
    """One more run of this host at `mode`'s pace under cProfile: the stats go to
    `--profile`, and the host's own functions that took the most time are printed."""
    import pstats

    paced = mode == "paced"
    with tempfile.TemporaryDirectory() as state_dir:
        port = free_port()
        proc = spawn("host", port, state_dir, unpaced=not paced, profile=str(args.profile))
        try:
            result = asyncio.run(
                run_load(
                    port,
                    proc.pid,
                    "host",
                    args.tables,
                    args.clients,
                    args.paced_seconds if paced else args.saturated_seconds,
                    args.interval_ms if paced else 0,
                    args.lockstep,
                )
            )
        finally:
            proc.terminate()  # kismet-host stops on SIGTERM, and the stats are written
            proc.wait(30)
    print(
        f"\nprofile ({mode}, under cProfile, which slows it: {result['events_per_s']:.0f} events/s) "
        f"in {args.profile}; the host's functions by cumulative time, set-up included:"
    )
    stats = pstats.Stats(str(args.profile))
    stats.sort_stats("cumulative").print_stats(r"(server|protocol|kismet_tui)/", 30)


def report(mode: str, med: dict, args) -> None:
    if mode == "paced":
        pace = "every" if args.lockstep else "about every"
        title = (
            f"paced: one action per table {pace} {args.interval_ms} ms"
            f"{' in lock-step' if args.lockstep else ' (jittered)'}, {args.paced_seconds:g} s"
        )
    else:
        title = f"saturated: the next action as soon as the last event is seen, {args.saturated_seconds:g} s"
    print(f"\n{title}")
    print(
        f"{'':7}{'events/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'worst':>8}{'slowest p50':>12}{'p99':>8}"
        f"{'CPU/event':>11}{'games':>7}"
    )
    for kind in kinds(args):
        m = med[kind]
        print(
            f"{kind:7}{m['events_per_s']:9.0f}{m['p50']:8.2f}{m['p99']:8.2f}{m['worst']:8.1f}"
            f"{m['slowest_p50']:12.2f}{m['slowest_p99']:8.2f}{m['cpu_us']:9.0f}us{m['games']:7.0f}"
        )
    if args.baseline:
        h, b = med["host"], med["before"]
        print(
            f"host/before: p50 {h['p50'] / b['p50']:.2f}x, p99 {h['p99'] / b['p99']:.2f}x, "
            f"events/s {h['events_per_s'] / b['events_per_s']:.2f}x, "
            f"CPU per event {h['cpu_us'] / b['cpu_us']:.2f}x  (before: {args.baseline})"
        )
    h, r = med["host"], med["relay"]
    print(
        f"host/relay: p50 {h['p50'] / r['p50']:.2f}x, p99 {h['p99'] / r['p99']:.2f}x, "
        f"worst {h['worst'] / r['worst']:.2f}x, events/s {h['events_per_s'] / r['events_per_s']:.2f}x, "
        f"CPU per event {h['cpu_us'] / r['cpu_us']:.2f}x"
    )
    if h["slow_down"]:
        print(f"note: the host rate-limited {h['slow_down']:.0f} messages")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument(
        "--modes",
        default="paced,saturated",
        help="which paces to measure, comma-separated: paced, saturated",
    )
    parser.add_argument(
        "--paced-seconds",
        type=float,
        default=16.0,
        help="measured window at the paced rate (long enough for game ends)",
    )
    parser.add_argument("--saturated-seconds", type=float, default=6.0)
    parser.add_argument("--interval-ms", type=int, default=100)
    parser.add_argument(
        "--lockstep",
        action="store_true",
        help="every table acts on the same tick (bursts of N actions)",
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="DIR",
        help="also measure the host from this source tree (before a change)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="FILE",
        help="then profile the host at the first pace with cProfile (stats to FILE)",
    )
    parser.add_argument("--serve-relay", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    loop_name = new_event_loop_policy()
    if args.serve_relay is not None:
        asyncio.run(relay_main(args.serve_relay))
        return
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    for mode in modes:
        if mode not in ("paced", "saturated"):
            parser.error(f"--modes: {mode!r} is neither paced nor saturated")
    print(
        f"{args.tables} tables x {args.clients} clients, {args.runs} runs (medians), {loop_name} loops; "
        f"latency from the sender's write to each member's receipt; CPU: the server process's"
    )
    for mode in modes:
        report(mode, measure(args, mode), args)
    if args.profile is not None:
        profile_host(args, modes[0])


if __name__ == "__main__":
    main()
