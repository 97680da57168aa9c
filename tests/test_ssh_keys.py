"""`kismet-host --ssh-keys FILE` as OpenSSH reads authorized_keys: each line's options, and
the file as it is now. A real asyncssh client logs in to an in-process host each time."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import asyncssh
import pytest

from tests.netutil import ROOT
from tests.sshutil import Terminal, ssh_host, start_lines

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]


def new_key():
    return asyncssh.generate_private_key("ssh-ed25519")


def line(key, options: str = "") -> str:
    public = key.export_public_key().decode().strip()
    return f"{options} {public}".strip() + "\n"


LOGINS = itertools.count(1)


async def lets_in(port: int, key, address: str = "127.0.0.1") -> bool:
    # A name of its own each time: the last login's player may not have left the host yet.
    try:
        async with asyncssh.connect(
            "127.0.0.1",
            port,
            username=f"P{next(LOGINS)}",
            known_hosts=None,
            client_keys=[key],
            agent_path=None,
            local_addr=(address, 0),
        ) as conn:
            chan, term = await conn.create_session(
                Terminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
            )
            await term.wait_for_text("Tables")
            chan.close()
            return True
    except asyncssh.PermissionDenied:
        return False


async def test_expiry_time_is_honoured(tmp_path):
    expired, lasting, utc_expired = new_key(), new_key(), new_key()
    keys = tmp_path / "authorized_keys"
    keys.write_text(
        line(expired, 'expiry-time="20200101"')
        + line(lasting, 'expiry-time="29990101"')
        + line(utc_expired, 'expiry-time="202001011200Z"')
    )
    async with ssh_host(tmp_path, keys_file=keys) as (host, ssh):
        assert not await lets_in(ssh.port, expired)
        assert not await lets_in(ssh.port, utc_expired)
        assert await lets_in(ssh.port, lasting)


async def test_from_is_honoured(tmp_path):
    key = new_key()
    keys = tmp_path / "authorized_keys"
    keys.write_text(line(key, 'from="127.0.0.2,10.0.0.0/8"'))
    async with ssh_host(tmp_path, keys_file=keys) as (host, ssh):
        assert not await lets_in(ssh.port, key, "127.0.0.3")
        assert await lets_in(ssh.port, key, "127.0.0.2")


@pytest.mark.parametrize("options", ["no-pty", 'command="/bin/date"', "restrict"])
async def test_a_key_that_may_not_play_is_refused(tmp_path, options):
    key = new_key()
    keys = tmp_path / "authorized_keys"
    keys.write_text(line(key, options))
    async with ssh_host(tmp_path, keys_file=keys) as (host, ssh):
        assert not await lets_in(ssh.port, key)
        assert len(ssh.authorized.refused) == 1 and "line 1" in ssh.authorized.refused[0]


async def test_restrict_with_pty_plays(tmp_path):
    key = new_key()
    keys = tmp_path / "authorized_keys"
    keys.write_text(line(key, "restrict,pty"))
    async with ssh_host(tmp_path, keys_file=keys) as (host, ssh):
        assert await lets_in(ssh.port, key)


async def test_a_changed_file_takes_effect_without_a_restart(tmp_path):
    first, second = new_key(), new_key()
    keys = tmp_path / "authorized_keys"
    keys.write_text(line(first))
    async with ssh_host(tmp_path, keys_file=keys) as (host, ssh):
        assert await lets_in(ssh.port, first)
        assert not await lets_in(ssh.port, second)
        # Rewritten as editors do (a new file renamed over the old): the first key removed.
        replacement = tmp_path / "authorized_keys.new"
        replacement.write_text(line(second))
        os.replace(replacement, keys)
        assert not await lets_in(ssh.port, first)
        assert await lets_in(ssh.port, second)
        keys.unlink()  # gone: nobody gets in, and nothing breaks
        assert not await lets_in(ssh.port, second)


def test_kismet_host_says_at_start_which_keys_it_will_not_let_in(tmp_path):
    keys = tmp_path / "authorized_keys"
    keys.write_text(line(new_key()) + line(new_key(), "no-pty") + line(new_key(), 'command="ls"'))
    lines, _ = start_lines(tmp_path, "--ssh-keys", str(keys))
    said = "\n".join(lines)
    assert f"{keys}, line 2: not let in: it may have no terminal (no-pty)" in said
    assert f"{keys}, line 3: not let in: it may run only one command (command=)" in said
    assert "line 1" not in said


def test_the_doors_load_without_a_librarys_warnings():
    """A host with a door says its own words at its start, not asyncssh's: with newer
    cryptography, importing asyncssh warned five lines about DSA, a key type no door uses."""
    loaded = subprocess.run(
        [sys.executable, "-W", "default", "-c", "import server.doors.ssh, server.doors.web"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert "Warning" not in loaded.stderr, loaded.stderr
