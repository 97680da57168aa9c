"""Memory per ssh session and key press to screen update, at 1, 10 and 20 sessions.

A real `kismet-host --ssh` subprocess on loopback; this process logs in N players with
asyncssh's client (a terminal of 80x24 each); each opens a solo dice table by keys (n,
enter, g) and throws (r). Then every player presses keys at once, as players do, with a
pause between presses (0.5 to 1.5 s, --pause): `1` holds the first die, `1` again releases it. A hold is timed
from the write to the moment the session's output holds the words "1 HELD" (the screen
update that shows it); the release is waited for, not timed. Baseline, in the same run: one
`kismet-join` on a pty driven directly (server/doors/pty_app.py), no ssh.

Memory: the proportional set size (PSS, shared pages divided among their sharers) of each
session's kismet-join process, from /proc; and the host process's own growth.

    python benchmarks/ssh_sessions.py [--sessions 1 10 20] [--presses 20]

Run it on a quiet machine for figures to quote; the p99 on a busy one mostly measures the
other load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncssh  # noqa: E402

from server.doors.pty_app import PtyApp  # noqa: E402

# The keys to a thrown solo dice game, each with words of the screen it leads to.
SETUP = [(b"n", b"Create"), (b"\r", b"Start"), (b"g", b"Throw"), (b"r", b"Hold")]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out += [int(c) for c in text]
    return out


class Output:
    """What one session has drawn so far, and a way to wait for words in what comes next."""

    def __init__(self):
        self.data = bytearray()
        self.changed = asyncio.Event()

    def feed(self, data: bytes) -> None:
        self.data += data
        self.changed.set()

    async def wait_for(self, words: bytes, since: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while words not in self.data[since:]:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {words!r} on screen")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass


class SshPlayer(asyncssh.SSHClientSession):
    def __init__(self):
        self.out = Output()
        self.chan = None

    def connection_made(self, chan):
        self.chan = chan

    def data_received(self, data, datatype):
        self.out.feed(data)

    def send(self, keys: bytes) -> None:
        self.chan.write(keys)


class PtyPlayer:
    def __init__(self, address: str, name: str):
        self.out = Output()
        self.app = PtyApp(
            [address, "--name", name, "--fresh"],
            term="xterm-256color",
            cols=80,
            rows=24,
            on_output=self.out.feed,
            on_exit=lambda code: None,
        )

    def send(self, keys: bytes) -> None:
        self.app.write(keys)


async def set_up(player) -> None:
    for keys, words in SETUP:
        since = len(player.out.data)
        player.send(keys)
        await player.out.wait_for(words, since, 120)


PAUSE = [0.5, 1.5]  # seconds a player waits between two keys (--pause)


async def press_loop(player, presses: int, rng: random.Random) -> list[float]:
    times = []
    for _ in range(presses):
        await asyncio.sleep(rng.uniform(*PAUSE))  # a player's pause between keys
        since = len(player.out.data)
        start = time.perf_counter()
        player.send(b"1")
        await player.out.wait_for(b"1 HELD", since)
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(rng.uniform(*PAUSE))
        since = len(player.out.data)
        player.send(b"1")  # release: wait for the redraw
        await player.out.wait_for(b"", since)
        while len(player.out.data) == since:
            await asyncio.sleep(0.005)
    return times


def summary(times: list[float]) -> str:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return (
        f"p50 {statistics.median(times):6.1f} ms  p99 {p99:6.1f} ms  max {times[-1]:6.1f} ms"
        f"  ({len(times)} holds)"
    )


async def run_ssh(host_pid: int, ssh_port: int, sessions: int, presses: int) -> None:
    conns, players = [], []
    host_before = pss_kb(host_pid)
    started = time.perf_counter()
    for index in range(sessions):
        key = asyncssh.generate_private_key("ssh-ed25519")
        conn = await asyncssh.connect(
            "127.0.0.1",
            ssh_port,
            username=f"p{sessions}x{index}",
            known_hosts=None,
            client_keys=[key],
            agent_path=None,
        )
        chan, player = await conn.create_session(
            SshPlayer, term_type="xterm-256color", term_size=(80, 24), encoding=None
        )
        conns.append(conn)
        players.append(player)
    await asyncio.gather(*(p.out.wait_for(b"Tables", 0, 120) for p in players))
    ready_s = time.perf_counter() - started
    await asyncio.gather(*(set_up(p) for p in players))
    kids = children(host_pid)
    await asyncio.sleep(1.0)  # let the apps finish loading (the solver's tables among them)
    apps0, host0 = sum(cpu_s(pid) for pid in kids), cpu_s(host_pid)
    rng = random.Random(sessions)
    results = await asyncio.gather(*(press_loop(p, presses, rng) for p in players))
    apps_cpu, host_cpu = sum(cpu_s(pid) for pid in kids) - apps0, cpu_s(host_pid) - host0
    per_press = (apps_cpu + host_cpu) / (2 * presses * sessions) * 1000
    pss = [pss_kb(pid) for pid in kids]
    rss = [rss_kb(pid) for pid in kids]
    times = [t for result in results for t in result]
    print(f"ssh, {sessions:2d} session(s): {summary(times)}")
    print(
        f"    per session: PSS {statistics.mean(pss) / 1024:5.1f} MiB, RSS {statistics.mean(rss) / 1024:5.1f} MiB"
        f" ({len(kids)} kismet-join processes); host grew {(pss_kb(host_pid) - host_before) / 1024:+.1f} MiB;"
        f" all lobbies drawn {ready_s:.1f} s after the first login;"
        f" CPU while pressing: apps {apps_cpu:.2f} s, host and ssh {host_cpu:.2f} s"
        f" ({per_press:.1f} ms a key press)"
    )
    for conn in conns:
        conn.close()
    for conn in conns:
        await conn.wait_closed()
    deadline = time.monotonic() + 15
    while children(host_pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


async def run_baseline(port: int, presses: int) -> list[float]:
    player = PtyPlayer(f"127.0.0.1:{port}", "baseline")
    await player.app.start()
    await player.out.wait_for(b"Tables", 0, 120)
    await set_up(player)
    await asyncio.sleep(1.0)
    times = await press_loop(player, presses, random.Random(0))
    pid = player.app.pid
    print(
        f"baseline, kismet-join on a pty without ssh: {summary(times)};"
        f" PSS {pss_kb(pid) / 1024:.1f} MiB, RSS {rss_kb(pid) / 1024:.1f} MiB"
    )
    await player.app.close()
    return times


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 20])
    parser.add_argument("--presses", type=int, default=20, help="holds per player")
    parser.add_argument(
        "--pause",
        type=float,
        nargs=2,
        default=list(PAUSE),
        metavar=("MIN", "MAX"),
        help="seconds between a player's keys (default 0.5 1.5, a player's pace)",
    )
    args = parser.parse_args()
    PAUSE[:] = args.pause
    state = tempfile.mkdtemp(prefix="kismet-bench-")
    port, ssh_port = free_port(), free_port()
    host = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--ssh",
            str(ssh_port),
            "--state-dir",
            state,
            "--bots",
            "0",
            "--no-announce",
            "--log-level",
            "WARNING",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        while "host's ssh key" not in (line := host.stdout.readline()):
            if not line:
                raise SystemExit("kismet-host did not start")
        print(
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start;"
            f" {PAUSE[0]}-{PAUSE[1]} s between a player's keys"
        )
        await run_baseline(port, args.presses)
        for sessions in args.sessions:
            await run_ssh(host.pid, ssh_port, sessions, args.presses)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        host.terminate()
        host.wait(10)


if __name__ == "__main__":
    asyncio.run(main())
