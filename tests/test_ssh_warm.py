"""Door sessions forked from the warm parent (server/doors/warm_doors.py,
server/doors/door_forker.py), over a real asyncssh client: a forked session plays, holds no fd
of another session, of the forker or of the host, starts with signals and environment of its
own; the parent restarts
after a SIGKILL and a login meanwhile waits for it; `--door-sessions spawn` keeps today's
start. (The doors' isolation tests, tests/test_ssh_hostile.py and tests/test_openssh.py,
run against forked sessions too: the test doors fork by default, as kismet-host does.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import asyncssh
import pytest

from server.doors.warm_doors import ForkedSession
from tests.netutil import wait_until
from tests.sshutil import (
    descendants_of,
    kismet_host_with_ssh,
    open_files,
    open_solo_dice,
    parent_of,
    port_open,
    ssh_host,
    ssh_login,
)

pytestmark = [pytest.mark.network, pytest.mark.timeout(240)]


def new_key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def only_app(ssh, name: str):
    return next(
        session.app
        for session in ssh.sessions
        if session.app is not None and f"--name={name}" in session.app.args
    )


async def test_a_forked_session_is_the_warm_parents_child_and_plays(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as ana:
            table = await open_solo_dice(ana, host)  # the lobby, a table, a game started
            app = only_app(ssh, "Ana")
            assert isinstance(app.proc, ForkedSession)
            assert parent_of(app.pid) == ssh.forker.process.pid != os.getpid()
            assert table.game is not None and table.seats[0].name == "Ana"


async def test_a_forked_session_holds_no_fd_of_another_session_the_forker_or_the_host(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with (
            ssh_login(ssh.port, "Ana", new_key()) as ana,
            ssh_login(ssh.port, "Bo", new_key()) as bo,
        ):
            await ana.wait_for_text("Tables")
            await bo.wait_for_text("Tables")
            ana_files = open_files(only_app(ssh, "Ana").pid)
            bo_files = open_files(only_app(ssh, "Bo").pid)
            # 0, 1 and 2 are each session's own terminal, and differ.
            ana_tty = {ana_files[fd][0] for fd in (0, 1, 2)}
            bo_tty = {bo_files[fd][0] for fd in (0, 1, 2)}
            assert len(ana_tty) == len(bo_tty) == 1 and ana_tty != bo_tty
            assert next(iter(ana_tty)).startswith("/dev/pts/")
            ana_inodes = {inode for _target, inode in ana_files.values()}
            bo_inodes = {inode for _target, inode in bo_files.values()}
            assert not ana_inodes & bo_inodes, "two sessions share an open file"
            forker = {inode for _target, inode in open_files(ssh.forker.process.pid).values()}
            host_side = {inode for _target, inode in open_files(os.getpid()).values()}
            for inodes in (ana_inodes, bo_inodes):
                assert not inodes & forker, "a session holds the forker's socket or files"
                assert not inodes & host_side, "a session holds a file of the host's"


def signal_handlers(pid: int) -> dict[str, int]:
    fields = dict(
        line.split(":\t", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":\t" in line
    )
    return {key: int(fields[key], 16) for key in ("SigBlk", "SigIgn")}


async def test_a_forked_session_is_a_session_leader_with_a_fresh_start(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")
            pid = only_app(ssh, "Ana").pid
            assert os.getsid(pid) == os.getpgid(pid) == pid  # its own session and group
            masks = signal_handlers(pid)
            assert masks["SigBlk"] == 0, "no signal blocked"
            ignored = masks["SigIgn"]
            for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
                assert not ignored & (1 << (signum - 1)), f"{signum!r} is ignored"
            # The app's own environment (the forker's is its start's: /proc shows that one).
            assert only_app(ssh, "Ana").door_env["KISMET_DOOR_PASS"]


async def test_the_warm_parent_is_started_again_and_a_login_meanwhile_waits_for_it(tmp_path):
    async with ssh_host(tmp_path) as (host, ssh):
        forker = ssh.forker
        await asyncio.wait_for(forker.ready.wait(), 120)
        first = forker.process.pid
        async with ssh_login(ssh.port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")
            ana_pid = only_app(ssh, "Ana").pid
            os.kill(first, signal.SIGKILL)
            # Its sessions go with it (their parent-death signal): no orphan...
            await wait_until(lambda: not Path(f"/proc/{ana_pid}").exists(), timeout=30)
            await wait_until(ana.closed.is_set, timeout=30)
        # ...and a login at once, while the new parent warms up, waits for it: forked again.
        async with ssh_login(ssh.port, "Bo", new_key()) as bo:
            await bo.wait_for_text("Tables")
            app = only_app(ssh, "Bo")
            assert isinstance(app.proc, ForkedSession)
            assert forker.restarts == 1 and forker.process.pid != first
            assert parent_of(app.pid) == forker.process.pid


@pytest.mark.parametrize("door_sessions", ["warm", "spawn"])
async def test_kismet_host_door_sessions_warm_forks_and_spawn_starts_anew(tmp_path, door_sessions):
    proc, ssh_port = kismet_host_with_ssh(tmp_path, "--door-sessions", door_sessions)
    try:
        await wait_until(lambda: port_open(ssh_port), timeout=60)
        async with ssh_login(ssh_port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")
            children = descendants_of(proc.pid)
            apps = [pid for pid in children if os.getsid(pid) == pid]  # session leaders
            direct = [
                int(child)
                for child in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            ]
            if door_sessions == "spawn":
                assert apps and all(pid in direct for pid in apps)
            else:
                # The forker (its own session too) and, under it, the app.
                (forker,) = [
                    pid
                    for pid in direct
                    if b"server.doors.door_forker" in Path(f"/proc/{pid}/cmdline").read_bytes()
                ]
                assert [pid for pid in apps if parent_of(pid) == forker]
    finally:
        proc.kill()
        proc.wait(10)


async def test_a_warm_parent_that_cannot_start_leaves_the_doors_starting_their_own(
    tmp_path, monkeypatch
):
    from server.doors import warm_doors

    monkeypatch.setattr(warm_doors, "FORKER_CODE", "import sys; sys.exit(3)")  # dies at once
    async with ssh_host(tmp_path) as (host, ssh):
        await asyncio.wait_for(ssh.forker.given_up.wait(), 120)
        assert ssh.forker.failed_starts == warm_doors.FAILED_STARTS_GIVEN_UP
        async with ssh_login(ssh.port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")
            app = only_app(ssh, "Ana")
            assert not isinstance(app.proc, ForkedSession) and parent_of(app.pid) == os.getpid()


def forkers_of(host_pid: int) -> list[int]:
    """The warm parents under a kismet-host process (its direct children)."""
    found = []
    for pid in Path(f"/proc/{host_pid}/task/{host_pid}/children").read_text().split():
        with contextlib.suppress(FileNotFoundError):  # (a session that ended meanwhile)
            if b"server.doors.door_forker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
    return found


def parents_of(pids: list[int]) -> set[int]:
    parents = set()
    for pid in pids:
        with contextlib.suppress(FileNotFoundError):
            parents.add(parent_of(pid))
    return parents


def session_leaders(host_pid: int) -> list[int]:
    """The sessions' apps and the warm parents under a kismet-host (each leads a session)."""
    leaders = []
    for pid in descendants_of(host_pid):
        with contextlib.suppress(ProcessLookupError, FileNotFoundError):
            if (
                os.getsid(pid) == pid
                and Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
            ):
                leaders.append(pid)
    return leaders


async def test_a_stuck_warm_parent_holds_up_no_login_and_is_replaced(tmp_path):
    proc, ssh_port = kismet_host_with_ssh(tmp_path, "--max-sessions", "5")
    stuck = None
    try:
        await wait_until(lambda: port_open(ssh_port), timeout=60)
        async with ssh_login(ssh_port, "Ana", new_key()) as ana:
            await ana.wait_for_text("Tables")  # (forked: the parent is warm)
            (stuck,) = forkers_of(proc.pid)
            ana_app = next(pid for pid in descendants_of(proc.pid) if parent_of(pid) == stuck)
            os.kill(stuck, signal.SIGSTOP)
            # Four logins at once while it answers nothing: each reaches its lobby (a process
            # of its own, after the fork request's deadline); none holds a slot hanging, so
            # with Ana they fill the five.
            began = time.monotonic()
            async with contextlib.AsyncExitStack() as logins:
                players = [
                    await logins.enter_async_context(ssh_login(ssh_port, name, new_key()))
                    for name in ("Bo", "Cy", "Di", "Ed")
                ]
                waited = []
                for player in players:
                    await player.wait_for_text("Tables", timeout=30)
                    waited.append(time.monotonic() - began)
                print(
                    f"\nlobbies with the warm parent stopped: {', '.join(f'{t:.1f}' for t in waited)} s"
                )
            # A new parent took over: the next login is forked by it, and Ana plays on.
            await wait_until(lambda: len(forkers_of(proc.pid)) == 2, timeout=30)
            await wait_until(
                lambda: len(session_leaders(proc.pid)) == 3, timeout=30
            )  # the four ended
            (fresh,) = [pid for pid in forkers_of(proc.pid) if pid != stuck]
            # (it may still be warming up, on a busy machine: a login meanwhile starts its own)
            forked_by_fresh = False
            for name in ("Fay", "Gus", "Hal"):
                async with ssh_login(ssh_port, name, new_key()) as later:
                    await later.wait_for_text("Tables", timeout=30)
                    forked_by_fresh = fresh in parents_of(descendants_of(proc.pid))
                if forked_by_fresh:
                    break
                await wait_until(lambda: len(session_leaders(proc.pid)) == 3, timeout=30)
            assert forked_by_fresh
            assert Path(f"/proc/{ana_app}").exists()
            ana.press(b"n")
            await ana.wait_for_text("Create")
        # Ana gone, the stuck parent has no session left: it is ended.
        await wait_until(
            lambda: (
                not Path(f"/proc/{stuck}").exists()
                or Path(f"/proc/{stuck}/stat").read_text().split(") ")[1][0] == "Z"
            ),
            timeout=30,
        )
    finally:
        proc.kill()
        proc.wait(10)


async def test_a_storm_of_fork_requests_waits_for_room_none_falls_back(tmp_path):
    from server.doors.warm_doors import DoorForker, ForkerUnavailable

    forker = DoorForker("storm")
    await forker.start()
    try:
        await asyncio.wait_for(forker.ready.wait(), 120)
        null = os.open(os.devnull, os.O_RDWR)
        try:
            # Forty at once, each with an environment of 16 KiB (a host's is a few): far
            # more than the socket holds (its send buffer, some 200 KiB).
            env = {"PATH": os.environ["PATH"], "PADDING": "x" * 16384}
            results = await asyncio.gather(
                *(
                    forker.spawn(["--help"], env, (null, null, null), terminal=False)
                    for _ in range(40)
                ),
                return_exceptions=True,
            )
        finally:
            os.close(null)
        fell_back = [r for r in results if isinstance(r, ForkerUnavailable)]
        assert not fell_back, fell_back[:3]
        assert all(isinstance(r, ForkedSession) for r in results)
        assert [await session.wait() for session in results] == [0] * 40
        assert forker.restarts == 0
        # Messages the socket has no room for wait for it, none is dropped: with the
        # parent stopped, sixty signals (to no child of it) fill its socket...
        parent = forker.parent
        os.kill(parent.process.pid, signal.SIGSTOP)
        try:
            for _ in range(60):
                parent.send_soon({"op": "signal", "pid": 1, "signal": 0})
            await wait_until(lambda: parent.unsent > 0, timeout=10)
        finally:
            os.kill(parent.process.pid, signal.SIGCONT)
        # ...and all go once it reads again.
        await wait_until(lambda: parent.unsent == 0, timeout=30)
        assert forker.parent is parent and parent.sock is not None
    finally:
        await forker.stop()


async def test_a_warm_parent_started_again_as_the_doors_stop_is_ended_with_them(tmp_path):
    """The task that starts a retired forker's successor is kept: stop waits for it, and ends
    the successor too (unkept, it was left starting, or stop waited on it for ever)."""
    from server.doors.warm_doors import DoorForker

    forker = DoorForker("restarted")
    await forker.start()
    try:
        await asyncio.wait_for(forker.ready.wait(), 120)
        forker.retire(forker.parent, "a test retires it")  # its successor starts meanwhile
    finally:
        await asyncio.wait_for(forker.stop(), 60)
    starting = [
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") == "DoorForker._start_again"
    ]
    assert not starting
    parents = [parent for parent in (forker.parent, *forker.retired) if parent is not None]
    assert all(parent.process.returncode is not None for parent in parents)
