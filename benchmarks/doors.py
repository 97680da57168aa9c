"""What a door player costs, with each session spawned (one `kismet-join` interpreter each)
beside each session forked from the warm parent, in one run.

For each mode (`kismet-host --door-sessions spawn|warm`) a real `kismet-host --ssh --web`
subprocess on 127.0.0.1, not announced, its state folder and HOME in a temp folder:

- a storm of `--storm` ssh logins all at once (120): each login's connect to its lobby
  drawn, the slowest, and how many sessions started a process of their own;
- ssh login to a drawn lobby: connect to the moment the session's output holds words of the
  lobby's first frame, one login at a time (the host quiet between them), median and p90;
  with asyncssh's client in this process, and with OpenSSH's `ssh` on a pty of its own (its
  own key, known-hosts file and config: nothing of ~/.ssh) when this machine has one;
- memory per ssh player with 1, 10 and 20 logged in: the PSS of every process under the
  host (each session's, and the warm parent's, so its share is counted) over the number of
  players, what that PSS is made of (anonymous pages against file-backed ones, from
  smaps_rollup), and the host's own growth;
- a browser visitor's first screen with 1, 5 and 10 visitors arriving at once: a websocket
  client speaking textual-serve's protocol (what the page's script does once loaded), timed
  from the socket's open to the name prompt in what the app draws; PSS per visitor as above,
  once each has typed a name and sits in the lobby; and one visitor in a real headless
  Chromium (as tests/test_web.py drives it), from the page asked for to the name prompt;
- 200 idle ssh players held while 20 active ones play solo dice at a player's pace: `1`
  holds the first die, timed from the write to "1 HELD" in the output (p50, p99, max); the
  host's memory, its sessions', and the machine's.

Targets (issue 23) are printed beside the figures. A host without `--door-sessions` (before
the warm parent landed) exits with a usage error: then only today's spawned sessions run,
and the script says so. Every process it starts is ended when it ends, on ctrl+c too.

    python benchmarks/doors.py [--modes spawn warm] [--logins 10] [--storm 120] [--max-starting N]
        [--ssh-players 1 10 20]
        [--visitors 1 5 10] [--chromium-runs 3] [--idle 200] [--active 20] [--presses 20]
        [--quick]

The figures are for comparing within one run; on a shared machine the latencies measure its
other load too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import aiohttp
import asyncssh

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # server/ and tests/ (the OpenSSH and Chromium players)


MODES = ("spawn", "warm")
# Words of the lobby's first full frame: its table pane, and its footer (drawn last); and
# words of the web door's name prompt.
LOBBY_WORDS = (b"make a new table", b"Sit")
NAME_PROMPT = b"Your name at the table"
# The keys to a thrown solo dice game, each with words of the screen it leads to.
DICE_SETUP = [(b"n", b"Create"), (b"\r", b"Start"), (b"g", b"Throw"), (b"r", b"Hold")]
PAUSE_S = (0.5, 1.5)  # a player's pause between two keys
LOGIN_BATCH = 10  # sessions logged in at once while filling the host
MEMORY_FLOOR_KIB = 6 * 1024 * 1024  # stop adding idle players when the machine has less left
TIMEOUT_S = 120.0
IDLE_WINDOW_S = 5.0  # how long idle players' CPU is watched

TARGET_LOGIN_S = 0.25
TARGET_SSH_MIB = 16.0
TARGET_WEB_S = 0.5
TARGET_WEB_MIB = 16.0
TARGET_P99_MS = 50.0

T = TypeVar("T")


# ---- processes and their memory, from /proc ------------------------------------------------


def proc_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state is [0], ppid [1])."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def descendants(pid: int) -> list[int]:
    """Every live process under `pid` (children, theirs, ...), zombies left out."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError):
                for word in (task / "children").read_text().split():
                    todo.append(int(word))
                    found.append(int(word))
    alive = []
    for pid in found:
        with contextlib.suppress(OSError):
            if proc_fields(pid)[0] != "Z":
                alive.append(pid)
    return alive


def rollup(pid: int) -> dict[str, int]:
    """smaps_rollup of `pid` in KiB (Pss, Pss_Anon, Pss_File, Rss, ...); empty if it is gone."""
    figures: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
            name, value, *_ = line.split()
            figures[name.rstrip(":")] = int(value)
    return figures


def cpu_s(pids: Sequence[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = proc_fields(pid)
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def meminfo_kib(name: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    return 0


def machine_used_kib() -> int:
    return meminfo_kib("MemTotal") - meminfo_kib("MemAvailable")


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


@dataclass
class Memory:
    """The PSS of the processes under the host, over `players`."""

    players: int
    processes: int
    pss_kib: int
    anon_kib: int
    file_kib: int
    host_kib: int

    @classmethod
    def of(cls, host_pid: int, players: int) -> Memory:
        figures = [rollup(pid) for pid in descendants(host_pid)]
        return cls(
            players,
            len(figures),
            sum(f.get("Pss", 0) for f in figures),
            sum(f.get("Pss_Anon", 0) for f in figures),
            sum(f.get("Pss_File", 0) for f in figures),
            rollup(host_pid).get("Pss", 0),
        )

    def per_player_kib(self) -> float:
        return self.pss_kib / max(1, self.players)

    def words(self) -> str:
        each = max(1, self.players)
        return (
            f"PSS {mib(self.per_player_kib())} a player ({mib(self.anon_kib / each)} anonymous,"
            f" {mib(self.file_kib / each)} file-backed; {self.processes} processes under the host)"
        )


# ---- the processes this run starts, all ended at its end -----------------------------------


@dataclass
class Started:
    """Every process started here, and every one seen under a host, to end at the end: by
    (pid, start time), so a pid used again by another process is left alone."""

    groups: list[subprocess.Popen[bytes]] = field(default_factory=list)
    seen: set[tuple[int, str]] = field(default_factory=set)

    def watch(self, host_pid: int) -> None:
        for pid in descendants(host_pid):
            with contextlib.suppress(OSError, IndexError):
                self.seen.add((pid, proc_fields(pid)[19]))

    def end_all(self) -> None:
        for proc in self.groups:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.groups:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        for pid, started in self.seen:
            with contextlib.suppress(OSError, IndexError):
                if proc_fields(pid)[19] == started:
                    os.kill(pid, signal.SIGKILL)


STARTED = Started()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Host:
    """`kismet-host --ssh --web` on 127.0.0.1 in `mode`, in a session (process group) of its
    own, its output in a file."""

    def __init__(
        self,
        mode: str,
        folder: Path,
        max_sessions: int,
        with_mode_option: bool,
        max_starting: int | None = None,
    ):
        self.mode = mode
        self.folder = folder
        self.port, self.ssh_port, self.web_port = free_port(), free_port(), free_port()
        home = folder / "home"
        home.mkdir(parents=True)
        self.output = folder / "host-output.txt"
        env = dict(
            os.environ,
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_STATE_HOME=str(home / ".local/state"),
            XDG_CACHE_HOME=str(home / ".cache"),
            PYTHONPATH=str(ROOT),
        )
        option = ["--door-sessions", mode] if with_mode_option else []
        if max_starting is not None:
            option += ["--max-starting", str(max_starting)]
        with self.output.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "server.cli",
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--ssh",
                    str(self.ssh_port),
                    "--web",
                    str(self.web_port),
                    "--state-dir",
                    str(folder / "state"),
                    "--bots",
                    "0",
                    "--no-announce",
                    "--max-sessions",
                    str(max_sessions),
                    "--log-level",
                    "WARNING",
                    *option,
                ],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        STARTED.groups.append(self.proc)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    async def started(self) -> bool:
        """True once both doors listen; False if the host ended with a usage error (exit code
        2: an option it does not know); any other end is an error."""
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code == 2 and "usage:" in self.text():
                return False
            if code is not None:
                raise SystemExit(f"kismet-host ended ({code}):\n{self.text()}")
            text = self.text()
            if "ssh key" in text and f":{self.web_port}/" in text:
                return True
            await asyncio.sleep(0.05)
        raise SystemExit(f"kismet-host did not start:\n{self.text()}")

    async def settle(self, processes: int) -> None:
        """Wait until at most `processes` live under the host (closed sessions gone), then
        until they spend (almost) no CPU (the apps done drawing)."""
        deadline = time.monotonic() + 60
        while len(descendants(self.pid)) > processes and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await quiet(self.pid)

    def stop(self) -> None:
        STARTED.watch(self.pid)
        if self.proc.poll() is None:
            os.killpg(self.pid, signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid, signal.SIGKILL)
            self.proc.wait(10)


async def quiet(host_pid: int, most_s: float = 15.0) -> None:
    """Wait (at most `most_s`) until the host's sessions spend under 2% of a CPU."""
    deadline = time.monotonic() + most_s
    while time.monotonic() < deadline:
        pids = descendants(host_pid)
        before = cpu_s(pids)
        await asyncio.sleep(0.5)
        if cpu_s(pids) - before < 0.01:
            return


# ---- players ----------------------------------------------------------------------------------


class Output:
    """What one session has drawn so far, and a way to wait for words in what comes next."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.changed = asyncio.Event()
        self.closed = False

    def feed(self, data: bytes) -> None:
        self.data += data
        self.changed.set()

    def close(self) -> None:
        self.closed = True
        self.changed.set()

    async def wait_for_lobby(self, since: int = 0) -> None:
        for words in LOBBY_WORDS:
            await self.wait_for(words, since)

    async def wait_for(self, words: bytes, since: int = 0, timeout: float = TIMEOUT_S) -> None:
        """Until `words` arrive after byte `since` (or any byte, for b"")."""
        deadline = time.monotonic() + timeout
        while words not in self.data[since:] or len(self.data) == since:
            if self.closed:
                raise RuntimeError(
                    f"the session ended before {words!r}:\n"
                    f"{self.data[-400:].decode(errors='replace')}"
                )
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {words!r} on screen")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)


class SshTerminal(asyncssh.SSHClientSession[bytes]):
    """asyncssh's side of one ssh session: its output kept."""

    def __init__(self) -> None:
        self.out = Output()
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None

    def connection_made(self, chan: asyncssh.SSHClientChannel[bytes]) -> None:  # type: ignore[override]
        self.chan = chan

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.out.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.out.close()


class SshPlayer:
    """One player logged in with asyncssh's client, an 80x24 terminal, a key of their own."""

    def __init__(self, conn: asyncssh.SSHClientConnection, terminal: SshTerminal):
        self.conn = conn
        self.out = terminal.out
        self.terminal = terminal

    @classmethod
    async def log_in(cls, port: int, name: str, key: asyncssh.SSHKey) -> SshPlayer:
        conn = await asyncssh.connect(
            "127.0.0.1", port, username=name, known_hosts=None, client_keys=[key], agent_path=None
        )
        _, session = await conn.create_session(
            SshTerminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
        )
        assert isinstance(session, SshTerminal)
        return cls(conn, session)

    def send(self, keys: bytes) -> None:
        assert self.terminal.chan is not None
        self.terminal.chan.write(keys)

    async def close(self) -> None:
        self.conn.close()
        await self.conn.wait_closed()


class Names:
    """A new player name for each login of the run."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, kind: str) -> str:
        self.count += 1
        return f"{kind}{self.count}"


NAMES = Names()


async def asyncssh_login(host: Host) -> tuple[float, SshPlayer]:
    """One login, timed from the connect to the lobby's first frame."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    start = time.perf_counter()
    player = await SshPlayer.log_in(host.ssh_port, NAMES("a"), key)
    await player.out.wait_for_lobby()
    return time.perf_counter() - start, player


async def openssh_login(host: Host, key_file: Path) -> float:
    """One login with OpenSSH's `ssh` on an 80x24 pty of its own (as tests/test_openssh.py
    runs it: this key only, its own known-hosts file, no config file), timed from its start
    to the lobby's first frame."""
    from tests.test_openssh import OpenSsh as OpenSshTerminal

    start = time.perf_counter()
    player = OpenSshTerminal(host.ssh_port, NAMES("o"), key_file, host.folder / "known_hosts")
    STARTED.groups.append(player.proc)
    try:
        while not all(words in player.received for words in LOBBY_WORDS):
            if player.proc.poll() is not None or time.perf_counter() - start > TIMEOUT_S:
                raise RuntimeError(f"OpenSSH never showed the lobby:\n{player.text()}")
            await asyncio.sleep(0.002)
        return time.perf_counter() - start
    finally:
        player.close()


class Visitor:
    """A browser visitor as textual-serve's page script is one: a websocket to /ws, sized
    80x24, from the page's own Origin; the app's output arrives as binary messages."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.out = Output()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.out.feed(message.data)
        self.out.close()

    @classmethod
    async def visit(cls, session: aiohttp.ClientSession, port: int) -> tuple[float, Visitor]:
        """One visitor, timed from the connect to the name prompt drawn."""
        start = time.perf_counter()
        ws = await session.ws_connect(
            f"http://127.0.0.1:{port}/ws?width=80&height=24",
            headers={"Origin": f"http://127.0.0.1:{port}"},
            max_msg_size=0,
        )
        visitor = cls(ws)
        await visitor.out.wait_for(NAME_PROMPT)
        return time.perf_counter() - start, visitor

    async def sit_down(self, name: str) -> None:
        """Type a name at the prompt, as the visitor does, and wait for the lobby."""
        since = len(self.out.data)
        await self.ws.send_str(json.dumps(["stdin", name + "\r"]))
        await self.out.wait_for_lobby(since)

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


# ---- figures ------------------------------------------------------------------------------------


def quantile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def verdict(met: bool, value: float, target: float) -> str:
    if met:
        return "target met"
    return f"target missed by {value / target:.1f}x"


async def in_batches(count: int, start: Callable[[], Awaitable[T]]) -> list[T]:
    """`count` results of `start()`, LOGIN_BATCH of them at a time."""
    results: list[T] = []
    while len(results) < count:
        batch = min(LOGIN_BATCH, count - len(results))
        results += await asyncio.gather(*(start() for _ in range(batch)))
    return results


async def close_all(players: Sequence[SshPlayer]) -> None:
    await asyncio.gather(*(player.close() for player in players))


def login_line(client: str, times: Sequence[float]) -> str:
    median = statistics.median(times)
    return (
        f"ssh login to a drawn lobby ({client}): median {median:.3f} s, p90"
        f" {quantile(times, 0.9):.3f} s of {len(times)}   [<= {TARGET_LOGIN_S} s:"
        f" {verdict(median <= TARGET_LOGIN_S, median, TARGET_LOGIN_S)}]"
    )


async def measure_logins(host: Host, logins: int, ssh: Path | None) -> list[str]:
    lines = []
    base = len(descendants(host.pid))
    times = []
    for _ in range(logins):
        took, player = await asyncssh_login(host)
        times.append(took)
        await player.close()
        await host.settle(base)
    lines.append(login_line("asyncssh", times))
    if ssh is None:
        lines.append("ssh login (OpenSSH): not measured, no `ssh` on this machine")
        return lines
    times = []
    for _ in range(logins):
        times.append(await openssh_login(host, ssh))
        await host.settle(base)
    lines.append(login_line("OpenSSH", times))
    return lines


async def measure_ssh_memory(host: Host, counts: Sequence[int]) -> list[str]:
    base = len(descendants(host.pid))
    lines = [
        f"  under the host with nobody logged in: {base} processes,"
        f" PSS {mib(Memory.of(host.pid, 1).pss_kib)}"
    ]
    for count in counts:
        host_before = rollup(host.pid).get("Pss", 0)
        start = time.perf_counter()
        logged = await in_batches(count, lambda: asyncssh_login(host))
        drawn_s = time.perf_counter() - start
        players = [player for _, player in logged]
        await quiet(host.pid)
        memory = Memory.of(host.pid, count)
        STARTED.watch(host.pid)
        each = memory.per_player_kib() / 1024
        target = (
            f"   [<= {TARGET_SSH_MIB:.0f} MiB at 20: {verdict(each <= TARGET_SSH_MIB, each, TARGET_SSH_MIB)}]"
            if count >= 20
            else ""
        )
        lines.append(
            f"ssh, {count:3d} logged in: {memory.words()}; host grew"
            f" {(memory.host_kib - host_before) / 1024:+.1f} MiB; every lobby drawn"
            f" {drawn_s:.1f} s after the first connect{target}"
        )
        await close_all(players)
        await host.settle(base)
    return lines


async def measure_web(host: Host, counts: Sequence[int]) -> list[str]:
    base = len(descendants(host.pid))
    lines = []
    async with aiohttp.ClientSession() as session:
        for count in counts:
            arrived = await asyncio.gather(
                *(Visitor.visit(session, host.web_port) for _ in range(count))
            )
            times = [took for took, _ in arrived]
            # Memory is counted once they play: named, in the lobby.
            await asyncio.gather(*(visitor.sit_down(NAMES("w")) for _, visitor in arrived))
            await quiet(host.pid)
            memory = Memory.of(host.pid, count)
            STARTED.watch(host.pid)
            worst, each = max(times), memory.per_player_kib() / 1024
            target = ""
            if count >= 10:
                target = (
                    f"   [<= {TARGET_WEB_S} s: {verdict(worst <= TARGET_WEB_S, worst, TARGET_WEB_S)};"
                    f" <= {TARGET_WEB_MIB:.0f} MiB: {verdict(each <= TARGET_WEB_MIB, each, TARGET_WEB_MIB)}]"
                )
            lines.append(
                f"browser, {count:3d} visitor(s) at once: first screen median"
                f" {statistics.median(times):.2f} s, slowest {worst:.2f} s; in the lobby:"
                f" {memory.words()}{target}"
            )
            await asyncio.gather(*(visitor.close() for _, visitor in arrived))
            await host.settle(base)
    return lines


async def measure_chromium(host: Host, runs: int, profile: Path) -> list[str]:
    """A visitor in a real headless Chromium, as the web tests drive it: from the page asked
    for to the name prompt drawn (the page, its script, the socket and the app together)."""
    from tests.test_web import CHROMIUM, browser_page

    if CHROMIUM is None:
        return ["browser in Chromium: not measured, no Chromium on this machine"]
    base = len(descendants(host.pid))
    times = []
    async with browser_page(profile) as tools:
        for _ in range(runs):
            tools.screen = None  # a new page: a new screen
            start = time.perf_counter()
            await tools.call("Page.navigate", url=f"http://127.0.0.1:{host.web_port}/")
            while NAME_PROMPT.decode() not in await tools.screen_text():
                if time.perf_counter() - start > TIMEOUT_S:
                    raise TimeoutError("Chromium never showed the name prompt")
                await asyncio.sleep(0.01)
            times.append(time.perf_counter() - start)
            await tools.call("Page.navigate", url="about:blank")  # the visitor leaves
            await host.settle(base)
    return [
        f"browser, 1 visitor in headless Chromium: page to first screen median"
        f" {statistics.median(times):.2f} s, slowest {max(times):.2f} s of {runs}"
    ]


async def dice_ready(player: SshPlayer) -> None:
    for keys, words in DICE_SETUP:
        since = len(player.out.data)
        player.send(keys)
        await player.out.wait_for(words, since)


async def press_loop(player: SshPlayer, presses: int, pace: Iterator[float]) -> list[float]:
    """`presses` holds of the first die, each timed to "1 HELD" on screen; each release is
    waited for (any redraw), not timed."""
    times = []
    for _ in range(presses):
        await asyncio.sleep(next(pace))
        since = len(player.out.data)
        start = time.perf_counter()
        player.send(b"1")
        await player.out.wait_for(b"1 HELD", since)
        times.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(next(pace))
        since = len(player.out.data)
        player.send(b"1")
        await player.out.wait_for(b"", since)
    return times


def paces(seed: int) -> Iterator[float]:
    import random

    rng = random.Random(seed)
    while True:
        yield rng.uniform(*PAUSE_S)


async def measure_storm(host: Host, logins: int) -> list[str]:
    """`logins` ssh logins all at once, each timed from its connect to its lobby's first
    frame; and how many sessions the warm parent forked (the rest started their own)."""
    base = len(descendants(host.pid))
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(logins)]
    host_cpu = cpu_s([host.pid])
    start = time.perf_counter()

    async def one(key: asyncssh.SSHKey) -> tuple[float, SshPlayer]:
        player = await SshPlayer.log_in(host.ssh_port, NAMES("s"), key)
        await player.out.wait_for_lobby()
        return time.perf_counter() - start, player

    done = await asyncio.gather(*(one(key) for key in keys), return_exceptions=True)
    players = [result[1] for result in done if isinstance(result, tuple)]
    times = sorted(result[0] for result in done if isinstance(result, tuple))
    failed = [result for result in done if not isinstance(result, tuple)]
    leaders = [pid for pid in descendants(host.pid) if os.getsid(pid) == pid]
    host_cpu = cpu_s([host.pid]) - host_cpu
    # (a forked session's command line is its warm parent's; the parent is the host's child)
    parents = [
        pid
        for pid in leaders
        if proc_fields(pid)[1] == str(host.pid)
        and b"door_forker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    sessions = [pid for pid in leaders if pid not in parents]
    sessions_cpu = cpu_s(sessions)
    spawned = sum(1 for pid in sessions if proc_fields(pid)[1] == str(host.pid))
    await close_all(players)
    await host.settle(base)
    line = (
        f"storm of {logins} ssh logins at once: lobby drawn median {statistics.median(times):.1f} s,"
        f" p90 {times[int(len(times) * 0.9) - 1]:.1f} s, slowest {times[-1]:.1f} s"
        f" (target under 10 s); {spawned} started a process of their own; CPU to get there:"
        f" the host {host_cpu:.1f} s, the sessions {sessions_cpu:.1f} s"
        f" ({sessions_cpu / max(1, len(players)) * 1000:.0f} ms each)"
    )
    return [line + (f"; {len(failed)} failed: {failed[0]!r}" if failed else "")]


async def measure_idle_and_active(
    host: Host,
    idle: int,
    active: int,
    presses: int,
    machine_before_kib: int,
    shown: Callable[[list[str]], None],
) -> list[str]:
    """The idle players' own cost is `shown` at once: the key presses that follow may not
    finish on a machine they have filled."""
    idle_players: list[SshPlayer] = []
    active_players: list[SshPlayer] = []
    lines: list[str] = []
    try:
        while len(idle_players) < idle:
            if meminfo_kib("MemAvailable") < MEMORY_FLOOR_KIB:
                lines.append(
                    f"  (stopped at {len(idle_players)} idle players: the machine had under"
                    f" {mib(MEMORY_FLOOR_KIB)} left)"
                )
                break
            batch = min(LOGIN_BATCH, idle - len(idle_players))
            idle_players += [
                player for _, player in await in_batches(batch, lambda: asyncssh_login(host))
            ]
            STARTED.watch(host.pid)
        if idle_players:
            # What idle players cost while nobody plays: their lobbies ask for the table list
            # every few seconds and redraw it.
            await quiet(host.pid)
            sessions = descendants(host.pid)
            before, host_before, start = cpu_s(sessions), cpu_s([host.pid]), time.perf_counter()
            await asyncio.sleep(IDLE_WINDOW_S)
            took = time.perf_counter() - start
            spent, host_spent = cpu_s(sessions) - before, cpu_s([host.pid]) - host_before
            shown(
                [
                    f"  idle: {spent / took / len(idle_players) * 1000:.1f} ms of CPU a second"
                    f" each ({spent / took:.2f} of a CPU for {len(idle_players)}; the host"
                    f" {host_spent / took:.2f}); the machine's use grew"
                    f" {mib(machine_used_kib() - machine_before_kib)}"
                ]
            )
        active_players = [
            player for _, player in await in_batches(active, lambda: asyncssh_login(host))
        ]
        await asyncio.gather(*(dice_ready(player) for player in active_players))
        await quiet(host.pid)
        held = await asyncio.gather(
            *(
                press_loop(player, presses, paces(index))
                for index, player in enumerate(active_players)
            )
        )
        memory = Memory.of(host.pid, len(idle_players) + len(active_players))
        STARTED.watch(host.pid)
        times = [took for result in held for took in result]
        p99 = quantile(times, 0.99)
        lines.insert(
            0,
            f"{len(idle_players)} idle + {len(active_players)} active ssh players: key press to"
            f" screen p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms, max"
            f" {max(times):.1f} ms ({len(times)} holds)   [p99 < {TARGET_P99_MS:.0f} ms:"
            f" {verdict(p99 < TARGET_P99_MS, p99, TARGET_P99_MS)}]",
        )
        lines.insert(
            1,
            f"  memory: host {mib(memory.host_kib)}, its sessions {mib(memory.pss_kib)}"
            f" ({memory.words()}); the machine's use grew"
            f" {mib(machine_used_kib() - machine_before_kib)} to {mib(machine_used_kib())}",
        )
    finally:
        await close_all(idle_players + active_players)
    return lines


async def run_mode(
    mode: str, args: argparse.Namespace, folder: Path, with_mode_option: bool, ssh: Path | None
) -> list[str] | None:
    """The figures of one mode, each printed as it is measured; None when this host has no
    --door-sessions."""
    machine_before = machine_used_kib()
    host = Host(
        mode,
        folder,
        max(args.idle + args.active, args.storm) + 20,
        with_mode_option,
        args.max_starting,
    )
    lines: list[str] = []

    def shown(new: list[str]) -> None:
        if new:
            print("\n".join(new), flush=True)
        lines.extend(new)

    try:
        if not await host.started():
            return None
        how = (
            "one kismet-join interpreter per session"
            if mode == "spawn"
            else "sessions forked from the warm parent"
        )
        print(f"\n== {mode}: {how}" + ("" if with_mode_option else " (the host's only way)"))
        await quiet(host.pid)
        base = len(descendants(host.pid))  # the warm parent, or nothing
        parts: list[tuple[str, bool, Callable[[], Awaitable[list[str]]]]] = [
            ("ssh logins", bool(args.logins), lambda: measure_logins(host, args.logins, ssh)),
            ("a storm of ssh logins", bool(args.storm), lambda: measure_storm(host, args.storm)),
            (
                "ssh players' memory",
                bool(args.ssh_players),
                lambda: measure_ssh_memory(host, args.ssh_players),
            ),
            ("browser visitors", bool(args.visitors), lambda: measure_web(host, args.visitors)),
            (
                "a visitor in Chromium",
                bool(args.chromium_runs),
                lambda: measure_chromium(host, args.chromium_runs, folder / "chromium"),
            ),
            (
                "idle and active ssh players",
                bool(args.idle or args.active),
                lambda: measure_idle_and_active(
                    host, args.idle, args.active, args.presses, machine_before, shown
                ),
            ),
        ]
        for what, wanted, measure in parts:
            if not wanted:
                continue
            try:
                shown(await measure())
            except (
                TimeoutError,
                RuntimeError,
                OSError,
                asyncssh.Error,
                aiohttp.ClientError,
            ) as exc:
                # One part that cannot finish (a machine too busy) still leaves the others.
                shown([f"{what}: not measured: {type(exc).__name__}: {exc}"])
                await host.settle(base)
        return lines
    finally:
        host.stop()


def openssh_key(folder: Path) -> Path | None:
    """A new key for OpenSSH's `ssh` in `folder`; None where this machine has no `ssh`."""
    if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        return None
    folder.mkdir()
    key_file = folder / "id_ed25519"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key_file)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return key_file


def print_side_by_side(figures: dict[str, list[str]]) -> None:
    """Each figure's line of every mode under its words (what comes before its first ': ')."""
    by_label: dict[str, dict[str, str]] = {}
    for mode, lines in figures.items():
        for line in lines:
            label, _, rest = line.strip().partition(": ")
            by_label.setdefault(label, {})[mode] = rest
    print("\n== side by side")
    for label, modes in by_label.items():
        print(label)
        for mode in figures:
            print(f"    {mode:5s}  {modes.get(mode, '-')}")


async def run(args: argparse.Namespace) -> None:
    print(
        f"{os.cpu_count()} CPUs, {mib(meminfo_kib('MemTotal'))} of memory, load average"
        f" {os.getloadavg()[0]:.1f} at the start; the machine uses {mib(machine_used_kib())}"
    )
    with tempfile.TemporaryDirectory(prefix="kismet-doors-") as temp:
        folder = Path(temp)
        # This process's HOME too (OpenSSH's), so nothing of the user's ~/.ssh is read.
        os.environ["HOME"] = str(folder)
        ssh = openssh_key(folder / "openssh")
        supported: bool | None = None  # whether this kismet-host takes --door-sessions
        figures: dict[str, list[str]] = {}
        for mode in args.modes:
            if supported is False and mode != "spawn":
                print(
                    f"(No `{mode}` run: this kismet-host has no --door-sessions, the warm parent"
                    f" has not landed.)"
                )
                continue
            lines = await run_mode(mode, args, folder / mode, supported is not False, ssh)
            if lines is None:
                supported = False
                print(
                    "(This kismet-host has no --door-sessions (it exits with a usage error):"
                    " the warm parent has not landed. Every session is spawned, as today.)",
                    flush=True,
                )
                if mode == "spawn":
                    lines = await run_mode(mode, args, folder / "spawn-today", False, ssh)
            else:
                supported = True
            if lines is not None:
                figures[mode] = lines
        if len(figures) > 1:
            print_side_by_side(figures)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument(
        "--logins", type=int, default=10, help="logins timed one at a time, per client (0: none)"
    )
    parser.add_argument("--storm", type=int, default=120, help="ssh logins all at once (0: none)")
    parser.add_argument(
        "--max-starting",
        type=int,
        default=None,
        help="the host's --max-starting (sessions starting at once; default: the host's own)",
    )
    parser.add_argument("--ssh-players", type=int, nargs="*", default=[1, 10, 20])
    parser.add_argument("--visitors", type=int, nargs="*", default=[1, 5, 10])
    parser.add_argument(
        "--chromium-runs",
        type=int,
        default=3,
        help="visits timed in a real headless Chromium (0: none)",
    )
    parser.add_argument("--idle", type=int, default=200, help="idle ssh players held (0: none)")
    parser.add_argument(
        "--active", type=int, default=20, help="ssh players pressing keys among them"
    )
    parser.add_argument("--presses", type=int, default=20, help="timed holds per active player")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 2 logins, 1 and 2 players, 1 visitor (and 1 in Chromium), 2 idle"
        " + 1 active, 3 presses",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.logins, args.ssh_players, args.visitors, args.chromium_runs = 2, [1, 2], [1], 1
        args.idle, args.active, args.presses, args.storm = 2, 1, 3, 4
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    try:
        asyncio.run(run(args))
    except KeyboardInterrupt:
        print("\nInterrupted: ending every process this run started.", file=sys.stderr)
        sys.exit(130)
    finally:
        STARTED.end_all()


if __name__ == "__main__":
    main()
