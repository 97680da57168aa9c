"""The ssh door against what an attacker sends: odd terminal types, names shaped like
options, floods of keys, huge windows, too many sessions. A real asyncssh client each time,
against an in-process host; every case ends in words or a working game, never a hang."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import resource
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import asyncssh
import pytest

from kismet_tui.net.client import Client, RequestError
from server.doors import rejoin_code
from server.doors.door_limits import MAX_COLS, MAX_ROWS, SESSION_ADDRESS_SPACE, SessionSlots
from server.doors.session_policy import INPUT_BACKLOG, INPUT_BURST, INPUT_BYTES_PER_SECOND
from server.doors.ssh import CRASHED_WORDS, INPUT_WINDOW, OUT_OF_MEMORY_WORDS, SshServer
from tests.netutil import ROOT, limit_near_its_peak, running_host, wait_until
from tests.sshutil import (
    Terminal,
    connect,
    descendants_of,
    have_the_code,
    kismet_host_with_ssh,
    port_open,
    rejoin_code_shown,
    ssh_host,
    ssh_login,
)

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
            chan, term = await conn.create_session(
                Terminal, term_type=term_type, term_size=(80, 24), encoding=None
            )
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


def window_of(app):
    """(cols, rows) of the app's pty, as the kernel holds it."""
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(app.master, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows


async def test_a_huge_window_is_clamped_at_login_and_on_resize(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key(), cols=100000, rows=100000) as term:
            await wait_until(
                lambda: (
                    only_session(ssh).app is not None and only_session(ssh).app.master is not None
                ),
                timeout=30,
            )
            app = only_session(ssh).app
            assert window_of(app) == (MAX_COLS, MAX_ROWS)
            term.chan.change_terminal_size(90, 30)
            await wait_until(lambda: window_of(app) == (90, 30), timeout=30)
            term.chan.change_terminal_size(100000, 100000)
            await wait_until(lambda: window_of(app) == (MAX_COLS, MAX_ROWS), timeout=30)
            term.chan.change_terminal_size(0, 0)  # nonsense: the window stays as it was
            term.chan.change_terminal_size(80, 24)
            await wait_until(lambda: window_of(app) == (80, 24), timeout=30)


def address_space_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max address space"):
            return int(line.split()[3])
    raise AssertionError("no address-space line")


async def test_the_app_runs_under_the_sessions_memory_limit(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            assert address_space_limit(only_session(ssh).app.pid) == SESSION_ADDRESS_SPACE


def virtual_size(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize")


async def test_an_app_out_of_memory_is_ended_in_words(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            app = only_session(ssh).app
            pid = app.pid
            # The limit brought down to what the app maps now: its next growth fails, as
            # a flood or a giant window would make it fail at the session's real limit.
            now = virtual_size(pid)
            resource.prlimit(pid, resource.RLIMIT_AS, (now, now))
            # The app is made to grow (a bigger window, the help) until it ends.
            sizes = [(MAX_COLS, MAX_ROWS), (80, 24)]
            while not term.closed.is_set():
                term.resize(*sizes[0])
                sizes.reverse()
                term.press(b"?")
                await asyncio.wait([asyncio.ensure_future(term.closed.wait())], timeout=0.5)
            # It ends either way: dead at its limit, or wedged there (neither dead nor
            # drawing), which the door ends when it answers nothing (WedgeWatch).
            ending = bytes(term.received[-600:])
            assert OUT_OF_MEMORY_WORDS.encode() in term.received, f"it ended with: {ending!r}"
            assert b"Traceback" not in term.received
            await wait_until(lambda: app.proc.returncode is not None, timeout=30)


async def test_a_flood_of_keys_waits_at_its_sender_and_the_host_serves_on(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as flooder:
            await flooder.wait_for_text("Tables")
            session = only_session(ssh)
            app = session.app
            fed = 0
            write = app.write

            def counting_write(data):  # what the door hands the app, counted on the way
                nonlocal fed
                fed += len(data)
                write(data)

            app.write = counting_write
            loop = asyncio.get_running_loop()
            started = loop.time()
            flooder.press(b"z" * (2 * 1024 * 1024))
            await wait_until(lambda: not session.reading, timeout=30)
            most_waiting = 0

            async def watch():
                nonlocal most_waiting
                while True:
                    most_waiting = max(most_waiting, app.input_backlog)
                    await asyncio.sleep(0.01)

            watcher = asyncio.ensure_future(watch())
            try:
                # Meanwhile somebody else logs in and plays at once.
                async with ssh_login(ssh.port, "Bo", new_key()) as other:
                    await other.wait_for_text("Tables")
                elapsed = loop.time() - started
            finally:
                watcher.cancel()
            # The flood waits at its sender: most of it has not even left the client, what
            # the door holds is bounded, and the app is fed no faster than the rate.
            assert flooder.chan.get_write_buffer_size() > 1024 * 1024
            assert most_waiting <= INPUT_BACKLOG + INPUT_WINDOW
            assert (
                fed
                <= INPUT_WINDOW + INPUT_BACKLOG + INPUT_BURST + elapsed * INPUT_BYTES_PER_SECOND * 2
            )


async def test_past_max_sessions_the_host_is_full_in_plain_words(tmp_path):
    async with ssh_host(tmp_path, slots=SessionSlots(1)) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")
            async with ssh_login(ssh.port, "Bo", new_key()) as bo:
                await bo.wait_for_text("The host is full")
                await wait_until(bo.closed.is_set, timeout=30)
            assert player_named(host, "Bo") is None
        await wait_until(lambda: ssh.slots.taken == 0, timeout=30)
        async with ssh_login(ssh.port, "Bo", new_key()) as bo:
            await bo.wait_for_text("Tables")


async def test_a_frozen_app_ends_with_its_connection(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            app = only_session(ssh).app
            os.kill(app.pid, signal.SIGSTOP)  # busy, or deaf to the hang-up
            term.conn.abort()
            await wait_until(lambda: app.proc.returncode is not None, timeout=30)
        assert not Path(f"/proc/{app.pid}").exists(), "reaped, not a zombie"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def test_a_killed_host_leaves_no_orphan(tmp_path):
    proc, ssh_port = kismet_host_with_ssh(tmp_path)
    try:
        await wait_until(lambda: port_open(ssh_port), timeout=30)
        async with ssh_login(ssh_port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            # The warm parent and, forked from it, the session's app (a session leader).
            apps = descendants_of(proc.pid)
            assert len(apps) >= 2, "the warm parent and the session's app run under the host"
            proc.kill()
            await wait_until(lambda: not any(alive(pid) for pid in apps), timeout=30)
    finally:
        proc.kill()
        proc.wait(10)


async def test_kismet_host_max_sessions_caps_the_doors(tmp_path):
    proc, ssh_port = kismet_host_with_ssh(tmp_path, "--max-sessions", "1")
    try:
        await wait_until(lambda: port_open(ssh_port), timeout=30)
        async with ssh_login(ssh_port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")
            async with ssh_login(ssh_port, "Bo", new_key()) as bo:
                await bo.wait_for_text("The host is full: it holds 1 players")
    finally:
        proc.kill()
        proc.wait(10)


PARENT_OF_A_DEAF_CHILD = """
import subprocess, sys
from kismet_tui.net.client import Client, RequestError
from server.doors import rejoin_code
from server.doors.door_limits import limit_session_child
child = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); print('up', flush=True); time.sleep(120)"],
    preexec_fn=limit_session_child, start_new_session=True, stdout=subprocess.PIPE, text=True)
child.stdout.readline()
print(child.pid, flush=True)
sys.stdin.read()
"""


def test_a_session_child_dies_with_the_host_even_deaf_to_the_hang_up():
    # A host killed outright closes nothing in order; a child that ignores SIGHUP (or is too
    # busy to act on it) would live on as an orphan but for the parent-death signal.
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_OF_A_DEAF_CHILD],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        child = int(parent.stdout.readline())
        assert alive(child)
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 30
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(child), "the child outlived the host"
    finally:
        parent.kill()
        parent.wait(10)
        parent.stdin.close()
        parent.stdout.close()


@contextlib.asynccontextmanager
async def login_from(port: int, address: str, name: str):
    """An ssh login from `address` (one of 127.0.0.0/8): the door sees that peer address."""
    async with asyncssh.connect(
        "127.0.0.1",
        port,
        username=name,
        known_hosts=None,
        client_keys=[new_key()],
        agent_path=None,
        local_addr=(address, 0),
    ) as conn:
        chan, term = await conn.create_session(
            Terminal, term_type="xterm-256color", term_size=(80, 24), encoding=None
        )
        term.conn = conn
        try:
            yield term
        finally:
            chan.close()


def connected_player(host, name):
    player = player_named(host, name)
    return player is not None and player.conn is not None


# The cap these tests set: two from one address, so three logins show it (the default, 8,
# would take nine, at about a second of CPU each, and check nothing more: peer_cap.py's
# count is the same whatever the cap).
CAP = 2


async def logins_past_the_cap(host, ssh, addresses):
    """One ssh login more than CAP, from `addresses`, each waited for until it is in or
    refused; returns the screens of those refused and the host's count by address (before
    they all leave)."""
    assert len(addresses) == CAP + 1
    async with contextlib.AsyncExitStack() as stack:
        players = [
            await stack.enter_async_context(login_from(ssh.port, address, f"P{i}"))
            for i, address in enumerate(addresses)
        ]
        for i, player in enumerate(players):
            await player.wait_for(
                lambda: connected_player(host, f"P{i}") or "Too many" in player.text(),
                what=f"P{i} in, or refused",
            )
        refused = [
            player.text() for i, player in enumerate(players) if not connected_player(host, f"P{i}")
        ]
        return refused, dict(host.gate.per_address.counts)


async def test_ssh_players_are_counted_by_their_own_address(tmp_path):
    # --cap-loopback: every connection counts, loopback's too; CAP from one address.
    async with running_host(tmp_path, cap_loopback=True, max_per_address=CAP) as host:
        ssh = SshServer(host, tmp_path)
        await ssh.start("127.0.0.1", 0)
        try:
            addresses = [f"127.0.0.{i}" for i in range(2, CAP + 3)]
            refused, counted = await logins_past_the_cap(host, ssh, addresses)
            assert not refused, f"players from as many addresses all get in; refused:\n{refused}"
            assert counted == dict.fromkeys(addresses, 1)
        finally:
            await ssh.stop()


async def test_the_ssh_player_past_the_cap_from_one_address_is_refused_in_words(tmp_path):
    async with running_host(tmp_path, cap_loopback=True, max_per_address=CAP) as host:
        ssh = SshServer(host, tmp_path)
        await ssh.start("127.0.0.1", 0)
        try:
            refused, counted = await logins_past_the_cap(host, ssh, ["127.0.0.2"] * (CAP + 1))
            assert len(refused) == 1 and "Too many connections from your address" in refused[0]
            assert counted == {"127.0.0.2": CAP}
        finally:
            await ssh.stop()


async def test_a_door_pass_is_revoked_with_its_session(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            conn = next(iter(c for c in host.connections if c.player and c.player.name == "Ana"))
            assert conn.door is not None and conn.door.door == "ssh"
            assert conn.door.address == "127.0.0.1"
            assert conn.door.identity.startswith("ssh-key SHA256:")
            assert len(host.door_passes) == 1
        await wait_until(lambda: len(host.door_passes) == 0, timeout=30)


async def test_a_keyless_door_pass_names_its_code_not_the_code_itself(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "nora") as term:
            await have_the_code(term)
            await term.wait_for_text("Tables")
            code = rejoin_code_shown(term).replace("-", "")
            conn = next(iter(c for c in host.connections if c.player and c.player.name == "nora"))
            assert conn.door.identity == rejoin_code.identity("nora", code)
            assert code not in conn.door.identity


async def test_a_pass_the_host_never_issued_is_refused(tmp_path):
    async with running_host(tmp_path) as host:
        client = Client(door_pass="made-up-by-someone", reconnect=False)
        with pytest.raises(RequestError, match="That door pass is not one this host gave."):
            await client.connect("127.0.0.1", host.port, "Eve")
        await client.close()
        assert not any(p.name == "Eve" for p in host.players.values())


async def test_an_app_that_crashes_is_ended_in_words(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            os.kill(only_session(ssh).app.pid, signal.SIGSEGV)
            await term.wait_for(lambda: CRASHED_WORDS.encode() in term.received, what="the words")
            await wait_until(term.closed.is_set, timeout=30)


@contextlib.asynccontextmanager
async def playing_near_its_limit(tmp_path):
    """A player's session whose app's limit is brought down to just over what it has
    mapped, once the door has seen it near (it looks while the app draws): (ssh, term, app)."""
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            app = only_session(ssh).app
            limit_near_its_peak(app.pid)
            sizes = [(100, 30), (80, 24)]
            while not app.memory.near:
                assert not term.closed.is_set(), "the app ended before the door looked"
                term.resize(*sizes[0])
                sizes.reverse()
                await asyncio.sleep(0.2)
            yield ssh, term, app


async def test_an_app_that_crashes_at_its_memory_limit_is_ended_as_out_of_memory(tmp_path):
    # At its limit an allocation may fail where no MemoryError can be raised (C code, the
    # stack growing): the app dies of a signal, and the player still reads why.
    async with playing_near_its_limit(tmp_path) as (ssh, term, app):
        os.kill(app.pid, signal.SIGSEGV)
        await term.wait_for(lambda: OUT_OF_MEMORY_WORDS.encode() in term.received, what="the words")
        assert CRASHED_WORDS.encode() not in term.received


async def pressing_until(term, condition, what: str, timeout: float = 60) -> None:
    """A key every half second until `condition()`, as a player at a frozen screen presses
    them: one key alone may not do, for what the app drew before it stopped can reach the
    door after that key (on a busy machine), and the door takes drawing as its answer."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        term.press(b"?")
        await asyncio.sleep(0.5)


async def test_an_app_wedged_at_its_memory_limit_is_ended_in_words(tmp_path):
    # At its limit an app may neither die nor draw again (a thread it could not start, a
    # MemoryError caught inside its loop): stopped, it stands for such an app. Asked to
    # draw (a key, a new size) and silent, the door ends it, as if it had died there.
    async with playing_near_its_limit(tmp_path) as (ssh, term, app):
        os.kill(app.pid, signal.SIGSTOP)
        term.resize(app.cols + 1, app.rows)
        await pressing_until(term, term.closed.is_set, what="the session's end")
        assert OUT_OF_MEMORY_WORDS.encode() in term.received
        assert b"Traceback" not in term.received
        await wait_until(lambda: app.proc.returncode is not None, timeout=30)
        await wait_until(lambda: ssh.slots.taken == 0, timeout=30)  # its slot is free


async def test_a_silent_app_far_from_its_limit_is_left_alone(tmp_path):
    # Silence alone is no wedge: a player's keys may change nothing on the screen, and an
    # app may be slow. Stopped, far from its limit, and asked to draw, it keeps its session.
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for_text("Tables")
            app = only_session(ssh).app
            os.kill(app.pid, signal.SIGSTOP)
            try:
                term.resize(app.cols + 1, app.rows)
                # The watch has judged its silence (WEDGED_AFTER_S after the keys) ...
                await pressing_until(term, lambda: app.wedge.judged >= 1, what="a judgement")
                # ... and, far from the limit, left it alone.
                assert not app.memory.near and not app.over_memory
                assert app.proc.returncode is None and not term.closed.is_set()
                drawn = len(term.received)
            finally:
                os.kill(app.pid, signal.SIGCONT)
            await term.wait_for(lambda: len(term.received) > drawn, what="the app drawing again")
            assert not term.closed.is_set()
