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
import re
import subprocess
import sys

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
