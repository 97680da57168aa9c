"""Door sessions cannot open the host's files (server/doors/session_sandbox.py): a session's real
process, forked by the warm parent or started anew, with the very confinement the ssh door
gives it, is pointed at the host's key file and at a game log as its seats file; the kernel
refuses both (the client then says "Permission denied" on screen), while the session's own
seat folder takes its rejoin token. A real `kismet-host` says nothing of the kind at start
where it can confine its sessions, and its ssh sessions run confined."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pyte
import pytest

from server.doors.pty_app import PtyApp
from server.doors.session_sandbox import landlock_abi
from server.identity import KEY_FILE
from tests.netutil import connected, wait_until
from tests.sshutil import (
    descendants_of,
    have_the_code,
    kismet_host_with_ssh,
    port_open,
    ssh_host,
    ssh_login,
    start_lines,
)

pytestmark = [
    pytest.mark.network,
    pytest.mark.timeout(180),
    pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock"),
]


async def session_screen(
    ssh, host, seats_file: Path, own: Path, *, forked: bool, until=lambda text: True
) -> str:
    """What a session confined as the ssh door confines one (seat folder `own`) shows when
    its seats file is `seats_file`, once its lobby is drawn and `until(what it shows)` holds
    (the words about the seats file come with the lobby, or a moment after)."""
    screen = pyte.Screen(200, 50)
    stream = pyte.ByteStream(screen)
    ended = asyncio.Event()
    app = PtyApp(
        [f"127.0.0.1:{host.port}", "--name=Eve", f"--seats-file={seats_file}"],
        term="xterm",
        cols=200,
        rows=50,
        on_output=stream.feed,
        on_exit=lambda code: ended.set(),
        door_env={"TMPDIR": str(own)},
        forker=ssh.forker if forked else None,
        confinement=ssh.sandbox.rules(own),
    )
    await app.start()
    try:

        def text() -> str:
            return " ".join(line.strip() for line in screen.display)

        deadline = asyncio.get_running_loop().time() + 60
        while "Sit" not in text() or "Tables" not in text() or not until(text()):
            assert not ended.is_set(), text()
            assert asyncio.get_running_loop().time() < deadline, text()
            await asyncio.sleep(0.05)
        return text()
    finally:
        await app.close()


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "spawned"])
async def test_a_session_cannot_open_the_hosts_key_or_a_game_log(tmp_path, forked):
    state = tmp_path / "state"
    async with ssh_host(state) as (host, ssh):
        await asyncio.wait_for(ssh.forker.ready.wait(), 120)
        async with connected(host, "Bo") as bo:  # a game, so a game log exists
            await bo.create_table("dice")
            await bo.ready()
            await bo.start()
            await wait_until(lambda: any((state / "games").iterdir()), timeout=30)
        (game_log,) = [path for path in (state / "games").iterdir() if path.is_file()][:1]
        key = state / KEY_FILE
        assert key.exists() and game_log.stat().st_size > 0
        key_before, log_before = key.read_bytes(), game_log.read_bytes()
        own = ssh.seats.folder("sandbox-test")
        for secret in (key, game_log):
            shown = await session_screen(
                ssh, host, secret, own, forked=forked, until=lambda text: "Permission" in text
            )
            assert "Permission denied" in shown, shown
        # Neither was moved aside as damaged: both where they were (the log only grew).
        assert key.read_bytes() == key_before and game_log.read_bytes().startswith(log_before)
        # Its own seat folder it may use: its token is saved there.
        # (Once its token is saved there the session has read the file and said what it had
        # to say about it.)
        saved = own / "rejoin-tokens.json"
        shown = await session_screen(
            ssh, host, saved, own, forked=forked, until=lambda text: saved.exists()
        )
        assert "could not be read" not in shown


def no_new_privs(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    return "NoNewPrivs:\t1" in status


async def test_kismet_host_confines_its_ssh_sessions_and_says_nothing_against_it(tmp_path):
    lines, _port = start_lines(tmp_path / "quiet")
    assert not [line for line in lines if "could read" in line or "may read" in line], lines
    proc, ssh_port = kismet_host_with_ssh(tmp_path / "state")
    try:
        await wait_until(lambda: port_open(ssh_port), timeout=60)
        async with ssh_login(ssh_port, "Ana") as ana:
            await have_the_code(ana)  # keyless: the rejoin code stays until enter
            await ana.wait_for_text("Tables")
            apps = [
                pid
                for pid in descendants_of(proc.pid)
                if os.getsid(pid) == pid
                and Path(f"/proc/{pid}/status").read_text().count("PPid")
                and int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                != proc.pid
            ]
            assert apps and all(no_new_privs(pid) for pid in apps)  # (Landlock sets it)
            assert not no_new_privs(proc.pid)
    finally:
        proc.kill()
        proc.wait(10)


# A process confined with the very rules the ssh door gives a session (confine() is what
# each session runs as it starts), then asked to signal the host's process.
SIGNAL_THE_HOST = """
import json, os, sys
from server.doors.session_sandbox import confine
confine(json.loads(sys.argv[1]))
try:
    os.kill(int(sys.argv[2]), 0)
    print("sent")
except PermissionError:
    print("refused")
"""


@pytest.mark.skipif(landlock_abi() < 6, reason="this kernel has no Landlock scopes (ABI 6)")
async def test_a_session_cannot_signal_the_host(tmp_path):
    import json
    import subprocess
    import sys

    from tests.netutil import ROOT

    async with ssh_host(tmp_path / "state") as (host, ssh):
        rules = ssh.sandbox.rules(ssh.seats.folder("signals"))
        asked = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            SIGNAL_THE_HOST,
            json.dumps(rules),
            str(os.getpid()),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
        said, _ = await asyncio.wait_for(asyncio.shield(asked.communicate()), 60)
        assert said.strip() == b"refused"
