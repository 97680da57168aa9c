"""The ssh door against what an attacker sends: odd terminal types, names shaped like
options, floods of keys, huge windows, too many sessions. A real asyncssh client each time,
against an in-process host; every case ends in words or a working game, never a hang."""

from __future__ import annotations

import pytest

import asyncssh

from tests.netutil import wait_until
from tests.sshutil import connect, ssh_host, ssh_login, Terminal

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]


def new_key():
    return asyncssh.generate_private_key("ssh-ed25519")


def player_named(host, name):
    return next((p for p in host.players.values() if p.name == name), None)


def only_session(ssh):
    return next(iter(ssh.sessions))


@pytest.mark.parametrize("term_type", ["xterm\0evil", "\x1b[31m", "x" * 200, "vt100;rm -rf"])
async def test_an_odd_terminal_type_plays_as_xterm_256color(tmp_path, term_type):
    async with ssh_host(tmp_path) as (host, ssh):
        async with connect(ssh.port, "Ana", new_key()) as conn:
            chan, term = await conn.create_session(Terminal, term_type=term_type,
                                                   term_size=(80, 24), encoding=None)
            await term.wait_for_text("Tables")
            assert only_session(ssh).app.term == "xterm-256color"
            chan.close()


async def test_a_plain_terminal_type_is_kept(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            assert only_session(ssh).app.term == "xterm-256color"
        async with ssh_login(ssh.port, "Bo", new_key(), term_type="screen.xterm-256color") as term:
            await term.wait_for_text("Tables")
            assert only_session(ssh).app.term == "screen.xterm-256color"


@pytest.mark.parametrize("name", ["-h", "--fresh", "--name=x", "--seats-file=/tmp/x"])
async def test_a_name_shaped_like_an_option_is_just_a_name(tmp_path, name):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, name, new_key()) as term:
            await term.wait_for_text("Tables")
            await wait_until(lambda: player_named(host, name) is not None, timeout=30)
