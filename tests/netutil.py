"""Network fixtures shared by the test suites: a host in-process or as a real subprocess,
and clients connected to it. Everything talks real TCP on 127.0.0.1.

    async with running_host(tmp_path) as host:            # in-process, port 0
        async with connected(host, "Ana") as ana: ...

    with host_process(tmp_path) as proc:                  # `python -m server.cli`
        proc.port, proc.kill(), proc.restart()
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from kismet_tui.net import Client
from server import Host

ROOT = Path(__file__).resolve().parent.parent

# Table options that make whole games quick enough for tests (per ruleset).
FAST = {
    "dice": {},
    "race": {"countdown_ms": 50, "round_limit_ms": 500, "reveal_ms": 20},
    "knock": {"knock_window_ms": 30, "away_limit_ms": 3000},
}


@contextlib.asynccontextmanager
async def running_host(state_dir, bot_factory=None, **kwargs):
    """An in-process Host on 127.0.0.1, any free port; stopped on exit."""
    host = Host(state_dir=state_dir, bot_factory=bot_factory, **kwargs)
    await host.start("127.0.0.1", 0)
    try:
        yield host
    finally:
        await host.stop()


@contextlib.asynccontextmanager
async def host_with_door(door_class, state_dir, door_sessions: str = "warm", **kwargs):
    """An in-process Host and one of its doors (server.doors.ssh.SshServer,
    server.doors.web.WebServer), both on 127.0.0.1, any free ports; yields (host, door). Its
    sessions are forked by a warm parent (server/doors/warm_doors.py, as kismet-host's
    default) or, with door_sessions="spawn", each started anew."""
    from server.doors.warm_doors import DoorForker

    async with running_host(state_dir) as host:
        forker = DoorForker(f"127.0.0.1:{host.port}") if door_sessions == "warm" else None
        if forker is not None:
            await forker.start()
        door = door_class(host, state_dir, forker=forker, **kwargs)
        try:
            await door.start("127.0.0.1", 0)
            yield host, door
        finally:
            await door.stop()
            if forker is not None:
                await forker.stop()


@contextlib.asynccontextmanager
async def connected(host_or_port, name: str, token: str | None = None, **kwargs):
    """A Client connected to a host (a Host or a port number); closed on exit."""
    port = host_or_port if isinstance(host_or_port, int) else host_or_port.port
    client = Client(**kwargs)
    await client.connect("127.0.0.1", port, name, token)
    try:
        yield client
    finally:
        await client.close()


async def start_together(owner, others, ruleset: str, options: dict) -> dict:
    """`owner` opens a table, each of `others` sits down and is ready, `owner` starts it.
    Returns the table as the owner saw it when opening it."""
    table = await owner.create_table(ruleset, options)
    for other in others:
        await other.join_table(table["id"])
        await other.ready()
    await owner.start()
    return table


async def looked_at_the_dice(*clients) -> None:
    """Wait until each client has had the throw it shows for the host's reaction floor [D20],
    so that a grab or knock it sends now is not refused as too quick."""
    from protocol.limits import REACTION_FLOOR_MS

    await wait_until(lambda: all(c.since_throw_ms() >= REACTION_FLOOR_MS for c in clients))


async def wait_until(predicate, timeout: float = 30.0, step: float = 0.01):
    """Poll `predicate()` until it is true; fail the test after `timeout` seconds (at least
    30: a busy machine is slow, not wrong, and a passing test returns at once anyway)."""
    deadline = time.monotonic() + max(timeout, 30.0)
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out waiting for {getattr(predicate, '__name__', predicate)}"
            )
        await asyncio.sleep(step)


def digests_checked(monkeypatch) -> list[tuple[object, int]]:
    """Every digest a host in this process has answered, as (connection, seq), from now on: a
    test waits until each client's digest of the last event is in before it reads
    `host.desyncs`, rather than sleeping and reading a count that may not be final yet."""
    from server import host as host_module

    checked: list[tuple[object, int]] = []
    answer = host_module.HANDLERS["digest"]

    def recorded(host, conn, msg, re) -> None:
        answer(host, conn, msg, re)
        checked.append((conn, msg["seq"]))

    monkeypatch.setitem(host_module.HANDLERS, "digest", recorded)
    return checked


def peak_size(pid: int) -> int:
    """The most process `pid` has mapped (its VmPeak), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmPeak:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmPeak")


def limit_near_its_peak(pid: int) -> None:
    """A door session's address-space limit brought down to just over what it has mapped:
    its peak at 90% of it, which is near (door_limits.near_its_memory_limit) with room left
    to draw. (Linux: resource.prlimit.)"""
    import resource

    near = int(peak_size(pid) / 0.9)
    resource.prlimit(pid, resource.RLIMIT_AS, (near, near))


def free_port() -> int:
    """A port on 127.0.0.1 for a server this test starts in another process, held for it.

    A port that was merely free a moment ago can be taken before the server binds it (by
    another xdist worker's server or by an outgoing connection): so it is left in TIME_WAIT,
    by a connection accepted on it and closed from this side. For about a minute the kernel
    then hands it to nobody asking for any port (bind to 0, connect), while a server naming
    it with SO_REUSEADDR, as asyncio's, asyncssh's and aiohttp's servers do, binds it at once.
    """
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            accepted, _ = listener.accept()
            accepted.close()  # closed first: this end, on `port`, waits out TIME_WAIT
    return port


class HostProcess:
    """A real `kismet-host` subprocess (run as `python -m server.cli`)."""

    def __init__(self, state_dir, port: int | None = None, bots: int = 8):
        self.state_dir = Path(state_dir)
        self.port = port or free_port()
        self.bots = bots
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--state-dir",
                str(self.state_dir),
                "--bots",
                str(self.bots),
                "--no-announce",
            ],  # tests tell nobody on the LAN about their hosts
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        deadline = time.monotonic() + 60  # a busy machine is slow to start Python, not wrong
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"kismet-host exited: {self.proc.stdout.read()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("kismet-host did not start listening")

    def kill(self) -> None:
        """SIGKILL: no chance to clean up."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            # SIGKILL cannot be refused, but a process in the middle of a disk write ends only
            # when the write does: on a busy machine that took over 5 s once.
            self.proc.wait(30)

    def terminate(self) -> int:
        self.proc.terminate()
        return self.proc.wait(10)

    def restart(self) -> None:
        self.kill()
        self.start()


@contextlib.contextmanager
def host_process(state_dir, **kwargs):
    proc = HostProcess(state_dir, **kwargs)
    proc.start()
    try:
        yield proc
    finally:
        proc.kill()
        if proc.proc is not None and proc.proc.stdout is not None:
            proc.proc.stdout.close()
