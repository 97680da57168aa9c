"""A real ssh client for the tests (asyncssh's, in the test process), and a screen to read.

    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", key) as player:
            await player.wait_for_text("Tables")
            player.press(b"n")

`player.screen` is a pyte terminal emulator fed with everything the app draws, so a test
reads the screen as the player would see it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pyte

from server.doors.ssh import SshServer
from tests.netutil import ROOT, free_port, host_with_door, wait_until


def ssh_host(state_dir, **kwargs):
    """An in-process Host with its ssh server, both on 127.0.0.1, any free ports."""
    return host_with_door(SshServer, state_dir, **kwargs)


def kismet_host_with_ssh(state_dir, *extra: str, stdout=subprocess.DEVNULL):
    """A real `kismet-host --ssh` (python -m server.cli) on 127.0.0.1, no bots, not announced;
    returns (the process, its ssh port)."""
    port, ssh_port = free_port(), free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
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
            str(state_dir),
            "--bots",
            "0",
            "--no-announce",
            *extra,
        ],
        cwd=ROOT,
        env=env,
        stdout=stdout,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return proc, ssh_port


def start_lines(state_dir, *extra: str) -> tuple[list[str], int]:
    """What a real `kismet-host --ssh` prints at start, up to the line of its ssh key (then
    it is stopped), and its ssh port."""
    proc, ssh_port = kismet_host_with_ssh(state_dir, *extra, stdout=subprocess.PIPE)
    try:
        lines: list[str] = []
        while not lines or "ssh key" not in lines[-1]:
            line = proc.stdout.readline()
            assert line, f"kismet-host ended: {lines}"
            lines.append(line.strip())
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
    return lines, ssh_port


async def open_solo_dice(player, host):
    """By keys, as a player does: a new dice table from the lobby (n, enter), started (g).
    `player` is any terminal with press() and wait_for_text(); returns the host's table."""
    await player.wait_for_text("Tables")
    player.press(b"n")
    await player.wait_for_text("Create")  # the new-table form's keys
    player.press(b"\r")
    await wait_until(lambda: len(host.tables) == 1, timeout=30)
    table = next(iter(host.tables.values()))
    player.press(b"g")
    await wait_until(lambda: table.game is not None, timeout=30)
    return table


async def have_the_code(player) -> None:
    """A keyless player's rejoin code stays on screen until they press enter to say they have
    it; this is that enter."""
    await player.wait_for_text("Press enter when you have it")
    player.press(b"\r")


CODE = re.compile(rb"Your rejoin code is ([A-Z0-9]{4}-[A-Z0-9]{4})")


def rejoin_code_shown(player) -> str:
    """The rejoin code the door showed a keyless player before the app started."""
    found = CODE.search(bytes(player.received))
    assert found, "no rejoin code was shown"
    return found.group(1).decode()


class Terminal(asyncssh.SSHClientSession):
    """The client side of one session: what arrives is drawn on a pyte screen."""

    def __init__(self, cols: int = 80, rows: int = 24):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.received = bytearray()
        self.closed = asyncio.Event()
        self.chan = None

    def connection_made(self, chan) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype) -> None:
        self.received += data
        self.stream.feed(data)

    def connection_lost(self, exc) -> None:
        self.closed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def press(self, keys: bytes) -> None:
        self.chan.write(keys)

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self.chan.change_terminal_size(cols, rows)

    async def wait_for(self, predicate, timeout: float = 60.0, what: str = "the screen") -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(
                    f"timed out waiting for {what}; the screen shows:\n{self.text()}"
                )
            await asyncio.sleep(0.02)

    async def wait_for_text(self, words: str, timeout: float = 60.0) -> None:
        await self.wait_for(lambda: words in self.text(), timeout, repr(words))


def connect(port: int, username: str, key=None, **kwargs):
    """asyncssh.connect to the test host: any host key, only `key` offered (no key at all
    when None: never the user's own keys or agent)."""
    return asyncssh.connect(
        "127.0.0.1",
        port,
        username=username,
        known_hosts=None,
        client_keys=[key] if key is not None else [],
        agent_path=None,
        **kwargs,
    )


@contextlib.asynccontextmanager
async def ssh_login(
    port: int,
    username: str,
    key=None,
    cols: int = 80,
    rows: int = 24,
    term_type: str = "xterm-256color",
):
    """Log in with a terminal of cols x rows; yields the Terminal (with `.conn`). Without a
    key, by keyboard-interactive (asyncssh's client tries it only when it has a password to
    give; OpenSSH always does. The host asks no question)."""
    keyless = {"password": "unused"} if key is None else {}
    async with connect(port, username, key, **keyless) as conn:
        chan, term = await conn.create_session(
            lambda: Terminal(cols, rows), term_type=term_type, term_size=(cols, rows), encoding=None
        )
        term.conn = conn
        try:
            yield term
        finally:
            chan.close()


def new_key():
    return asyncssh.generate_private_key("ssh-ed25519")


def descendants_of(pid: int) -> list[int]:
    found = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return found  # (ended while we looked)
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:
            continue  # a thread that ended while we looked (the host's worker threads come and go)
        for child in children:
            found += [int(child), *descendants_of(int(child))]
    return found


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def open_files(pid: int) -> dict[int, tuple[str, tuple[int, int]]]:
    """A process's fds: what each points at, and the (device, inode) of that. Anonymous
    inodes (epoll, eventfd) are left out: the kernel gives all of them one inode."""
    found = {}
    for entry in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{entry}")
            info = os.stat(f"/proc/{pid}/fd/{entry}")
        except FileNotFoundError:
            continue  # closed while we looked
        if not target.startswith("anon_inode:"):
            found[int(entry)] = (target, (info.st_dev, info.st_ino))
    return found


COMMANDS = {
    "kismet": "local_main",
    "kismet-join": "join_main",
    "kismet-replay": "replay_main",
}


class OnPty:
    """A command of kismet_tui.cli running on a new pty (its controlling terminal), 80x24."""

    def __init__(self, command: str, args: list[str], before: str = "") -> None:
        """`before`: Python run first in the child (a test's change to the program)."""
        code = (
            f"import sys; {before}\nfrom kismet_tui.cli import {COMMANDS[command]} as main; "
            f"sys.exit(main(sys.argv[1:]))"
        )
        env = dict(
            os.environ, PYTHONPATH=str(ROOT), TERM="xterm-256color", COLUMNS="80", LINES="24"
        )
        self.pid, self.master = pty.fork()
        if self.pid == 0:  # the child: become the command
            try:
                os.execve(sys.executable, [sys.executable, "-c", code, *args], env)
            finally:
                os._exit(127)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.output = b""
        self.status: int | None = None

    def read_until(self, wanted: bytes | None, seconds: float = 30.0) -> None:
        """Read what the command draws until `wanted` shows (None: any byte at all)."""
        deadline = time.monotonic() + seconds
        while not self.output if wanted is None else wanted not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"never drew {wanted!r}; drew {self.output[-400:]!r}")
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:  # EIO: the command has ended, and its side of the pty with it
                    raise AssertionError(
                        f"ended before drawing {wanted!r}; drew {self.output[-400:]!r}"
                    ) from None

    def wait_for_exec(self, seconds: float = 10.0) -> None:
        """Until the child runs Python (it then imports the program, before any frame)."""
        deadline = time.monotonic() + seconds
        while b"kismet_tui.cli" not in _cmdline(self.pid):
            if time.monotonic() > deadline:
                raise AssertionError("the command never started")
            time.sleep(0.005)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def close_terminal(self) -> None:
        os.close(self.master)
        self.master = -1

    def gone_within(self, seconds: float, unless_drawn: bytes | None = None) -> bool:
        """Poll the pid until it has ended (and reap it), or the time is up, or (given
        `unless_drawn`) it has drawn those bytes since the call: it goes on."""
        deadline = time.monotonic() + seconds
        drawn_before = len(self.output)
        while time.monotonic() < deadline:
            if unless_drawn is not None and unless_drawn in self.output[drawn_before:]:
                return False
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return True
            if self.master >= 0:  # keep reading, so the command never waits on a full pty
                ready, _, _ = select.select([self.master], [], [], 0.02)
                if ready:
                    try:
                        self.output += os.read(self.master, 65536)
                    except OSError:
                        pass
            else:
                time.sleep(0.02)
        return False

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        if self.master >= 0:
            os.close(self.master)


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read()
    except OSError:
        return b""
