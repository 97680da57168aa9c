"""The ssh door with the client players really use: OpenSSH's `ssh`, on a terminal of its
own (a pty, read through pyte). Skipped where this machine has no `ssh` client."""

from __future__ import annotations

import asyncio
import os
import pty
import shutil
import subprocess

import pyte
import pytest

from server.pty_app import set_size
from server.ssh import SshServer
from tests.netutil import running_host, wait_until
from tests.sshutil import open_solo_dice

SSH = shutil.which("ssh")
pytestmark = [pytest.mark.network, pytest.mark.timeout(180),
              pytest.mark.skipif(SSH is None, reason="no OpenSSH client (apt-get install openssh-client)")]


class OpenSsh:
    """`ssh -p PORT NAME@127.0.0.1` on an 80x24 pty; `.text()` is its screen."""

    def __init__(self, port: int, name: str, key_file, known_hosts, strict: str):
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        master, slave = pty.openpty()
        set_size(slave, 80, 24)
        self.proc = subprocess.Popen(
            [SSH, "-p", str(port), "-i", str(key_file), "-o", "IdentitiesOnly=yes",
             "-o", f"UserKnownHostsFile={known_hosts}", "-o", f"StrictHostKeyChecking={strict}",
             "-o", "BatchMode=yes", "-F", "/dev/null", f"{name}@127.0.0.1"],
            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
            env=dict(os.environ, TERM="xterm-256color"))
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
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    async def wait_for_text(self, words: str, timeout: float = 60.0) -> None:
        try:
            await wait_until(lambda: words in self.text(), timeout=timeout)
        except AssertionError:
            raise AssertionError(f"OpenSSH's screen never showed {words!r}:\n{self.text()}") from None

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
