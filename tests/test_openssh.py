"""The ssh door with the client players really use: OpenSSH's `ssh`, on a terminal of its
own (a pty, read through pyte). Skipped where this machine has no `ssh` client."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import resource
import shutil
import signal
import socket
import struct
import subprocess
import termios
import time

import pyte
import pytest

from server.doors.door_limits import MAX_COLS, MAX_ROWS, SessionSlots
from server.doors.pty_app import set_size
from server.doors.session_policy import INPUT_BACKLOG
from server.doors.ssh import INPUT_WINDOW, OUT_OF_MEMORY_WORDS, SshServer
from tests.netutil import running_host, wait_until
from tests.sshutil import (
    kismet_host_with_ssh,
    open_solo_dice,
    rejoin_code_shown,
    ssh_host,
)

SSH = shutil.which("ssh")
pytestmark = [
    pytest.mark.network,
    pytest.mark.timeout(180),
    pytest.mark.skipif(SSH is None, reason="no OpenSSH client (apt-get install openssh-client)"),
]


class OpenSsh:
    """`ssh -p PORT -l NAME 127.0.0.1` on an 80x24 pty; `.text()` is its screen. Without a
    key_file it logs in without a key (keyboard-interactive, which the host asks nothing)."""

    def __init__(
        self,
        port: int,
        name: str,
        key_file,
        known_hosts,
        strict: str = "no",
        term: str = "xterm-256color",
        source: str | None = None,
    ):
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.received = bytearray()
        master, slave = pty.openpty()
        set_size(slave, 80, 24)
        if key_file is not None:
            how = ["-i", str(key_file), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes"]
        else:
            how = [
                "-o",
                "PubkeyAuthentication=no",
                "-o",
                "PreferredAuthentications=keyboard-interactive",
            ]
        self.proc = subprocess.Popen(
            [
                SSH,
                "-p",
                str(port),
                *how,
                "-o",
                f"UserKnownHostsFile={known_hosts}",
                "-o",
                f"StrictHostKeyChecking={strict}",
                "-F",
                "/dev/null",
                *(["-b", source] if source else []),
                "-l",
                name,
                "127.0.0.1",
            ],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            env=dict(os.environ, TERM=term),
        )
        os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self.master)
            return
        self.received += data
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def window(self, cols: int, rows: int) -> None:
        """Give OpenSSH's terminal this size, unclamped (it tells the host: window-change)."""
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        # (The pty is not ssh's controlling terminal here, so the kernel does not tell it.)
        os.kill(self.proc.pid, signal.SIGWINCH)

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    async def wait_for_text(self, words: str, timeout: float = 60.0) -> None:
        try:
            await wait_until(lambda: words in self.text(), timeout=timeout)
        except AssertionError:
            raise AssertionError(
                f"OpenSSH's screen never showed {words!r}:\n{self.text()}"
            ) from None

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.master)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        os.close(self.master)


@pytest.fixture
def client_key(tmp_path):
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return key


async def test_openssh_plays_and_a_restarted_host_shows_the_same_key(tmp_path, client_key):
    known = tmp_path / "known_hosts"
    async with running_host(tmp_path) as host:
        ssh = SshServer(host, tmp_path)
        await ssh.start("127.0.0.1", 0)
        port = ssh.port
        player = OpenSsh(port, "Ana", client_key, known, "accept-new")
        try:
            table = await open_solo_dice(player, host)
            player.press(b"r")
            await wait_until(lambda: table.game.view(0)["rolls_used"] == 1, timeout=30)
            await player.wait_for_text("throws left: 2")
        finally:
            player.close()
            await ssh.stop()

        # Started again on the same state folder: the same key, so a strict client that
        # knows the host from the first time logs in without a word about a changed key;
        # and the same NAME with the same key is back in the game, mid-turn.
        again = SshServer(host, tmp_path)
        await again.start("127.0.0.1", port)
        player = OpenSsh(port, "Ana", client_key, known, "yes")
        try:
            await player.wait_for_text("throws left: 2")
            assert "IDENTIFICATION HAS CHANGED" not in player.text()
        finally:
            player.close()
            await again.stop()


@contextlib.asynccontextmanager
async def openssh(port: int, name: str, known_hosts, key_file=None, **kwargs):
    player = OpenSsh(port, name, key_file, known_hosts, **kwargs)
    try:
        yield player
    finally:
        player.close()


async def test_openssh_without_a_key_gets_its_seat_back_only_with_its_code(tmp_path):
    known = tmp_path / "known_hosts"
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(ssh.port, "nora", known) as nora:
            await nora.wait_for_text("Press enter when you have it")
            code = rejoin_code_shown(nora)
            # It stays: no game covers it until nora presses enter (it used to show for
            # 0.2-0.7 s). A game would be on screen well within this second.
            until = time.monotonic() + 1.0
            while time.monotonic() < until:
                assert f"Your rejoin code is {code}" in nora.text() and "Tables" not in nora.text()
                await asyncio.sleep(0.05)
            nora.press(b"\r")
            # In the lobby's top line, and again on ?.
            await nora.wait_for_text(f"your rejoin code {code}")
            nora.press(b"?")
            await nora.wait_for_text(f"Your rejoin code: {code}")
            nora.press(b"\x1b")
            await wait_until(lambda: "Your rejoin code:" not in nora.text(), timeout=30)
            table = await open_solo_dice(nora, host)
        await wait_until(lambda: table.game.away[0], timeout=30)
        seat_token = table.seats[0].token

        async with openssh(ssh.port, "nora", known) as thief:
            await thief.wait_for_text("Rejoin code for nora")
            thief.press(b"ABCDEFGH\r" if code != "ABCD-EFGH" else b"HGFEDCBA\r")
            await thief.wait_for_text("That is not the rejoin code for nora.")
        assert host.players[seat_token].conn is None and table.game.away[0]

        async with openssh(ssh.port, "nora", known) as back:
            await back.wait_for_text(
                "Rejoin code for nora (shown when you first logged in as nora)"
            )
            back.press(code.encode() + b"\r")
            await back.wait_for_text("throws left")
            await wait_until(lambda: not table.game.away[0], timeout=30)


@pytest.mark.parametrize("name", ["-h", "--fresh", "--name=x"])
async def test_openssh_names_shaped_like_options_are_names(tmp_path, client_key, name):
    # (OpenSSH itself sends no user name starting with "-": such a name is typed at the
    # door's question, here after a login name too long to use.)
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(ssh.port, "x" * 40, tmp_path / "known_hosts", client_key) as player:
            await player.wait_for_text("Your name at the table:")
            player.press(name.encode() + b"\r")
            await player.wait_for_text("Tables")
            await wait_until(
                lambda: any(p.name == name and p.conn is not None for p in host.players.values()),
                timeout=30,
            )


async def test_openssh_with_an_odd_term_plays(tmp_path, client_key):
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(
            ssh.port, "Ana", tmp_path / "known_hosts", client_key, term="xterm\x1b]0;owned\x07"
        ) as player:
            await player.wait_for_text("Tables")
            assert next(iter(ssh.sessions)).app.term == "xterm-256color"


async def test_openssh_expired_and_no_pty_keys_are_refused(tmp_path, client_key):
    keys = tmp_path / "authorized_keys"
    public = (client_key.parent / (client_key.name + ".pub")).read_text().strip()
    keys.write_text(f'expiry-time="20200101" {public}\n')
    async with ssh_host(tmp_path, keys_file=keys) as (host, ssh):
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as player:
            await wait_until(lambda: player.proc.poll() is not None, timeout=30)
            assert "Permission denied" in player.text()
        keys.write_text(f"no-pty {public}\n")
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as player:
            await wait_until(lambda: player.proc.poll() is not None, timeout=30)
            assert "Permission denied" in player.text()
        keys.write_text(f'expiry-time="29990101" {public}\n')
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as player:
            await player.wait_for_text("Tables")


async def test_openssh_past_max_sessions_reads_the_host_is_full(tmp_path, client_key):
    async with ssh_host(tmp_path, slots=SessionSlots(1)) as (host, ssh):
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as ana:
            await ana.wait_for_text("Tables")
            async with openssh(ssh.port, "Bo", tmp_path / "known_hosts", client_key) as bo:
                await bo.wait_for_text("The host is full")
                await wait_until(lambda: bo.proc.poll() is not None, timeout=30)


async def test_openssh_a_flood_of_keys_waits_at_its_sender(tmp_path, client_key):
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as flooder:
            await flooder.wait_for_text("Tables")
            session = next(iter(ssh.sessions))
            flood = bytearray(b"z" * (2 * 1024 * 1024))

            def pipe_in():  # as fast as OpenSSH's terminal takes it
                while flood:
                    try:
                        del flood[: os.write(flooder.master, flood[:65536])]
                    except BlockingIOError:
                        return

            loop = asyncio.get_running_loop()
            loop.add_writer(flooder.master, pipe_in)
            try:
                await wait_until(lambda: not session.reading, timeout=30)
                most = 0
                for _ in range(100):  # a second of the flood, watched
                    most = max(most, session.app.input_backlog)
                    await asyncio.sleep(0.01)
                assert most <= INPUT_BACKLOG + INPUT_WINDOW
                async with openssh(ssh.port, "Bo", tmp_path / "known_hosts", client_key) as other:
                    await other.wait_for_text("Tables")
                assert len(flood) > 1024 * 1024, "most of the flood is still at its sender"
            finally:
                loop.remove_writer(flooder.master)


def app_window(app) -> tuple[int, int]:
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(app.master, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows


async def test_openssh_a_huge_window_is_clamped(tmp_path, client_key):
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as player:
            await player.wait_for_text("Tables")
            app = next(iter(ssh.sessions)).app
            player.window(65535, 65535)  # the most a terminal's size can say
            await wait_until(lambda: app_window(app) == (MAX_COLS, MAX_ROWS), timeout=30)
            player.window(100, 30)
            await wait_until(lambda: app_window(app) == (100, 30), timeout=30)


async def test_openssh_player_counts_against_its_own_address(tmp_path, client_key):
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(
            ssh.port, "Ana", tmp_path / "known_hosts", client_key, source="127.0.0.5"
        ) as player:
            await player.wait_for_text("Tables")
            await wait_until(lambda: any(c.door is not None for c in host.connections), timeout=30)
            conn = next(c for c in host.connections if c.door is not None)
            assert conn.door.address == "127.0.0.5" and conn.door.identity.startswith(
                "ssh-key SHA256:"
            )


async def test_openssh_an_app_out_of_memory_ends_in_words(tmp_path, client_key):
    async with ssh_host(tmp_path) as (host, ssh):
        async with openssh(ssh.port, "Ana", tmp_path / "known_hosts", client_key) as player:
            await player.wait_for_text("Tables")
            pid = next(iter(ssh.sessions)).app.pid
            # The limit brought down to what the app maps now: its next growth fails.
            size = (
                int(
                    next(
                        line for line in open(f"/proc/{pid}/status") if line.startswith("VmSize:")
                    ).split()[1]
                )
                * 1024
            )
            resource.prlimit(pid, resource.RLIMIT_AS, (size, size))
            # The door tells a death at the limit from a crash by what it saw while the app
            # drew (at most once a second: server/doors/session_policy.py's MemoryLook). Small
            # redraws until it has seen the app near its new limit, so the verdict below is
            # the door's and not a race with a busy machine.
            app = next(iter(ssh.sessions)).app
            for step in range(300):  # a minute at most
                if app.memory.near or player.proc.poll() is not None:
                    break
                player.window(80, 24 + step % 2)
                await asyncio.sleep(0.2)
            # The app is made to grow (a bigger window, the help) until it ends.
            sizes = [(MAX_COLS, MAX_ROWS), (80, 24)]
            while player.proc.poll() is None:
                player.window(*sizes[0])
                sizes.reverse()
                player.press(b"?")
                for _ in range(50):  # half a second for this push to end it
                    if player.proc.poll() is not None:
                        break
                    await asyncio.sleep(0.01)
            # (A session growing past its limit beside a busy suite takes a while to be stopped.)
            await wait_until(lambda: OUT_OF_MEMORY_WORDS in player.text(), timeout=90)
            assert b"Traceback" not in player.received


@pytest.mark.parametrize("doors", ["warm", "spawn"])
async def test_openssh_players_see_the_goodbye_when_a_real_host_stops(tmp_path, doors):
    # OpenSSH quits at once on the ssh "disconnect" message, without writing out what it
    # has received and not yet shown: a host that wrote its goodbye and closed at once left
    # the board on the player's screen (and their terminal in the app's modes) until `reset`.
    proc, port = kismet_host_with_ssh(tmp_path, "--door-sessions", doors)
    try:
        await wait_until(lambda: port_open(port), timeout=60)
        async with contextlib.AsyncExitStack() as stack:
            players = [
                await stack.enter_async_context(openssh(port, name, tmp_path / "known_hosts"))
                for name in ("Ana", "Bo")
            ]
            for player in players:
                await player.wait_for_text("Press enter when you have it")
                player.press(b"\r")
                await player.wait_for_text("Tables")
            proc.send_signal(signal.SIGTERM)
            for player in players:
                await wait_until(lambda: player.proc.poll() is not None, timeout=30)
                await wait_until(lambda: "The host stopped" in player.text(), timeout=5)
                received = bytes(player.received)
                assert received.rfind(b"\x1b[?1049l") > received.rfind(b"\x1b[?1049h") >= 0
                assert received.rfind(b"\x1b[?1000l") > received.rfind(b"\x1b[?1000h")
    finally:
        proc.kill()
        proc.wait(30)


def port_open(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False
