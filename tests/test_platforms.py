"""The commands on Windows and macOS, and the doors on Linux before 5.3 (issue 31 points 1, 2).

Each command here runs as a real process whose imports see what the platform has
(tests/platform_sim.py: Windows has no fcntl, resource, pty or termios, no SIGHUP, os.fork or
os.pwrite; macOS refuses RLIMIT_AS and has no pidfds or prctl; Linux before 5.3 fails
pidfd_open with ENOSYS), against real hosts on 127.0.0.1:

- `kismet-join` joins a real `kismet-host`, `kismet-replay --verify` checks a real signed
  game, and a solo `kismet` game is played by keys, as on Windows; `kismet-host` hosts
  `kismet-join` players there and refuses --ssh and --web in words;
- a friend logs in over ssh to a `kismet-host --ssh` as on macOS and as on old Linux, and the
  host says at start what the platform lacks; a door session on a system that cannot limit
  its address space is watched instead, and ended in the same words past its limit.

Seen before (main at 7840c1f): every command died at import on Windows (signal.SIGHUP in
kismet_tui/terminal.py); on macOS and old Linux the ssh login never reached the lobby.
"""

from __future__ import annotations

import asyncio
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from protocol.logsign import fingerprint
from server.identity import HostIdentity
from tests.logutil import play_a_game
from tests.netutil import ROOT, connected, free_port, host_process, wait_until
from tests.platform_sim import simulated
from tests.sshutil import new_key, ssh_login
from tests.verifyutil import records

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]

COMMANDS = {
    "kismet": "local_main",
    "kismet-join": "join_main",
    "kismet-replay": "replay_main",
    "kismet-host": None,
}


def command_line(command: str, *args: str) -> list[str]:
    if command == "kismet-host":
        return [sys.executable, "-m", "server.cli", *args]
    code = f"import sys; from kismet_tui.cli import {COMMANDS[command]} as main; sys.exit(main(sys.argv[1:]))"
    return [sys.executable, "-c", code, *args]


def run_as(
    platform: str, command: str, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command_line(command, *args),
        cwd=ROOT,
        env=simulated(platform),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


class OnPty:
    """A command on a pty of its own (80x24), as `platform` would run it."""

    def __init__(self, platform: str, command: str, *args: str) -> None:
        argv = command_line(command, *args)
        env = simulated(platform, dict(os.environ, TERM="xterm-256color", COLUMNS="80", LINES="24"))
        self.pid, self.master = pty.fork()
        if self.pid == 0:
            try:
                os.execve(sys.executable, argv, env)
            finally:
                os._exit(127)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.output = b""
        self.status: int | None = None

    def read_until(self, wanted: bytes, seconds: float = 60.0) -> None:
        deadline = time.monotonic() + seconds
        while wanted not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"never drew {wanted!r}; drew {self.output[-1500:]!r}")
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    raise AssertionError(
                        f"ended before drawing {wanted!r}; drew "
                        f"{self.output[-3000:].decode('utf-8', 'replace')}"
                    ) from None

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def pump(self, seconds: float) -> None:
        """Read what it draws for `seconds` (so it never waits on a full pty)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.output += os.read(self.master, 65536)

    def exit_code(self, seconds: float = 20.0) -> int:
        """Its exit code once it has ended (reading its output meanwhile)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return os.waitstatus_to_exitcode(status)
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    time.sleep(0.02)
        raise AssertionError(f"still running; drew {self.output[-1500:]!r}")

    def kill(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.master)


@pytest.mark.parametrize("platform", ["windows", "macos"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_starts(platform, command):
    done = run_as(platform, command, "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout


def test_kismet_join_plays_at_a_host_as_on_windows(tmp_path):
    with host_process(tmp_path / "host") as host:
        proc = OnPty(
            "windows",
            "kismet-join",
            f"127.0.0.1:{host.port}",
            "--name",
            "Ana",
            "--seats-file",
            str(tmp_path / "seats.json"),
        )
        try:
            proc.read_until(b"Tables")
            proc.type(b"n")  # a new table: the host answers with its form
            proc.read_until(b"Create")
            proc.type(b"\x11")  # ctrl+q
            assert proc.exit_code() == 0
        finally:
            proc.kill()
    assert b"Traceback" not in proc.output


async def test_kismet_replay_verifies_a_real_game_as_on_windows(tmp_path):
    state = tmp_path / "host"
    with host_process(state) as host:
        await play_a_game(host.port, "race", ("greedy", "greedy"))
        [path] = (state / "games").glob("*.kismet")
        await wait_until(lambda: any(r["kind"] == "signature" for r in records(path)))
    key = fingerprint(HostIdentity.load(state).public_key)
    done = await asyncio.to_thread(
        run_as, "windows", "kismet-replay", "--verify", str(path), "--host-key", key
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The end record matches the replay" in done.stdout


def test_a_solo_game_as_on_windows(tmp_path):
    solo = tmp_path / "solo"
    proc = OnPty("windows", "kismet", "--state-dir", str(solo), "--name", "Ana")
    try:
        proc.read_until(b"Play a game now")
        proc.type(b"\r")  # dice, against one bot
        proc.read_until(b"Throw")
        proc.type(b"r")
        [log] = wait_for_files(solo / "games")
        deadline = time.monotonic() + 60
        while not any(
            r["kind"] == "event" and r["seat"] == 0 and r["action"].get("type") == "score"
            for r in records(log)
        ):
            assert time.monotonic() < deadline, records(log)
            proc.type(b"\r")  # score the box under the cursor once thrown
            proc.pump(0.3)
        proc.type(b"\x11")  # ctrl+q
        assert proc.exit_code() == 0
    finally:
        proc.kill()
    assert b"Traceback" not in proc.output
    # Its lock was taken (Windows' msvcrt) and is free again: another solo game may start.
    from server.state_lock import StateLock

    StateLock.acquire(solo).release()


@pytest.mark.parametrize("platform", ["windows", "oldlinux"])
def test_invite_is_offered_where_the_doors_run_and_words_elsewhere(tmp_path, platform):
    proc = OnPty(platform, "kismet", "--state-dir", str(tmp_path / "solo"), "--name", "Ana")
    try:
        proc.read_until(b"Play a game now")
        proc.type(b"\x1b")  # not now: to the lobby
        if platform == "windows":  # no key: words say how to play together
            proc.read_until(b"Inviting friends from this game needs Linux or macOS")
            proc.pump(0.5)
            assert b"Invite" not in proc.output
        else:
            proc.read_until(b"Invite")
            assert b"Inviting friends" not in proc.output
        proc.type(b"\x11")
        assert proc.exit_code() == 0
    finally:
        proc.kill()


def wait_for_files(folder, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while not (found := list(folder.glob("*.kismet")) if folder.exists() else []):
        assert time.monotonic() < deadline, f"no game log in {folder}"
        time.sleep(0.05)
    return found


def start_host(platform: str, state_dir, *doors: str) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    proc = subprocess.Popen(
        command_line(
            "kismet-host",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            str(state_dir),
            "--bots",
            "0",
            "--no-announce",
            *doors,
        ),
        cwd=ROOT,
        env=simulated(platform, dict(os.environ, PYTHONUNBUFFERED="1")),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, port


def lines_until(proc: subprocess.Popen[str], last: str) -> list[str]:
    lines: list[str] = []
    while not lines or last not in lines[-1]:
        line = proc.stdout.readline()
        assert line, f"kismet-host ended: {lines}"
        lines.append(line.rstrip("\n"))
    return lines


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stdout.close()


async def test_a_windows_host_serves_kismet_join_players(tmp_path):
    proc, port = start_host("windows", tmp_path / "state")
    try:
        lines = await asyncio.to_thread(lines_until, proc, f"kismet-join 127.0.0.1:{port}")
        assert "Players join with:" in lines
        async with connected(port, "Ana") as ana:
            table = await ana.create_table("dice", {})
            assert table["id"]
    finally:
        stop(proc)


@pytest.mark.parametrize("door", ["--ssh", "--web"])
def test_a_windows_host_refuses_the_doors_in_words(tmp_path, door):
    done = run_as(
        "windows",
        "kismet-host",
        "--bind",
        "127.0.0.1",
        "--port",
        str(free_port()),
        "--state-dir",
        str(tmp_path),
        "--no-announce",
        door,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{door} is not available on Windows" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


SAYS = {
    "macos": [
        "This system cannot limit a door session's address space (RLIMIT_AS): the host "
        "watches each session's memory instead and ends one past its limit.",
        "This system has no pidfds: each ssh or web session starts a process of its own "
        "(a slower login).",
    ],
    "oldlinux": [
        "This system has no pidfds: each ssh or web session starts a process of its own "
        "(a slower login)."
    ],
}


@pytest.mark.parametrize("platform", ["macos", "oldlinux"])
async def test_an_ssh_login_reaches_a_game(tmp_path, platform):
    ssh_port = free_port()
    proc, port = start_host(platform, tmp_path / "state", "--ssh", str(ssh_port))
    try:
        lines = await asyncio.to_thread(lines_until, proc, "ssh key")
        for words in SAYS[platform]:
            assert words in lines, lines
        async with ssh_login(ssh_port, "Ana", new_key()) as player:
            await player.wait_for_text("Tables", timeout=60)
            player.press(b"n")
            await player.wait_for_text("Create", timeout=30)
            player.press(b"\r")  # a dice table of her own
            await player.wait_for_text("Start", timeout=30)
            player.press(b"g")  # started: her first throw
            await player.wait_for_text("Throw", timeout=30)
    finally:
        stop(proc)


@pytest.mark.parametrize(
    "environ, unicode",
    [
        ({"LANG": "C.UTF-8"}, True),
        ({"LANG": "C"}, False),
        ({}, False),  # Windows' old console sets nothing
        ({"WT_SESSION": "a1b2"}, True),  # Windows Terminal
        ({"WT_SESSION": "a1b2", "LANG": "C"}, True),
    ],
)
def test_unicode_where_the_terminal_has_it(environ, unicode):
    from kismet_tui.widgets.glyphs import terminal_has_unicode

    assert terminal_has_unicode(environ) == unicode


def test_unicode_by_flag_and_in_windows_terminal(monkeypatch):
    import argparse

    from kismet_tui.cli import add_ascii_option, set_drawing
    from kismet_tui.widgets.glyphs import ascii_mode, use_ascii

    parser = argparse.ArgumentParser()
    add_ascii_option(parser)
    for var in ("WT_SESSION", "LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(var, raising=False)
    try:
        set_drawing(parser.parse_args([]))
        assert ascii_mode()
        set_drawing(parser.parse_args(["--unicode"]))
        assert not ascii_mode()
        monkeypatch.setenv("WT_SESSION", "a1b2")
        set_drawing(parser.parse_args([]))
        assert not ascii_mode()
        set_drawing(parser.parse_args(["--ascii"]))
        assert ascii_mode()
    finally:
        use_ascii(False)


async def test_where_no_address_space_limit_a_session_past_its_memory_is_ended_in_words(
    tmp_path, monkeypatch
):
    """macOS enforces no RLIMIT_AS: the door watches the session's memory instead (here on
    Linux with the limit switched off the same way, and a limit below what a client holds)."""
    from server.doors import door_limits, pty_app
    from server.doors.ssh import OUT_OF_MEMORY_WORDS
    from tests.sshutil import ssh_host

    monkeypatch.setattr(door_limits, "address_space_limited", lambda: False)
    monkeypatch.setattr(pty_app, "address_space_limited", lambda: False)
    async with ssh_host(
        tmp_path, door_sessions="spawn", session_address_space=24 * 1024 * 1024
    ) as (_host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as term:
            await term.wait_for(
                lambda: OUT_OF_MEMORY_WORDS.encode() in term.received, what="the words"
            )
            assert b"Traceback" not in term.received


def test_a_sessions_memory_is_read_without_proc_as_on_macos():
    code = (
        "import asyncio, os; from server.doors.memory_watch import resident_bytes; "
        "print(asyncio.run(resident_bytes(os.getpid())))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=simulated("macos"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert 5 * 1024 * 1024 < int(done.stdout) < 1024 * 1024 * 1024, done.stdout


def test_the_state_folder_lock_as_on_windows_names_its_holder(tmp_path):
    """Windows' lock (msvcrt, a byte past the text) keeps a second host out, and the holder's
    pid and port stay readable for the words that name it."""
    hold = (
        "import sys; from server.state_lock import StateLock; lock = StateLock.acquire(sys.argv[1]); "
        "lock.write(7717); print('held', flush=True); sys.stdin.readline()"
    )
    take = (
        "import sys; from server.state_lock import StateLock, StateFolderBusy\n"
        "try:\n    StateLock.acquire(sys.argv[1])\nexcept StateFolderBusy as exc:\n    print(exc)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(tmp_path)],
        cwd=ROOT,
        env=simulated("windows"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        done = subprocess.run(
            [sys.executable, "-c", take, str(tmp_path)],
            cwd=ROOT,
            env=simulated("windows"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (
            f"Another kismet-host (pid {holder.pid}, port 7717) is using the state folder"
            in done.stdout
        ), done.stdout + done.stderr
    finally:
        holder.communicate("\n", timeout=30)
    done = subprocess.run(
        [sys.executable, "-c", take, str(tmp_path)],
        cwd=ROOT,
        env=simulated("windows"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr  # free again
