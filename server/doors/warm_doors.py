"""The host's side of the warm parent of door sessions (server/doors/door_forker.py): starting it,
asking it for a session, watching and ending that session, and a new parent when one dies.

`kismet-host --door-sessions warm` (the default) starts one DoorForker when a door opens;
both doors ask it for their sessions' processes (`spawn`). Each is a ForkedSession: not the
host's child but the forker's, so the host watches it by a pidfd (readable when it has
ended), signals it through that pidfd (never a reused pid), and learns its exit status from
the forker, which reaps it. `--door-sessions spawn` keeps the doors starting a new
interpreter per session (server/doors/pty_app.py, server/doors/web_session.py), as before.

If the forker dies, a new one is started at once; a session asked for meanwhile waits for
it (at most READY_WAIT_SECONDS), and the doors start a process of their own
(ForkerUnavailable) when none comes in time. The players notice a slower login, nothing more.

A forker never holds up a login. Its socket is written with backpressure (a full socket is
waited on, never a request dropped), at most IN_FLIGHT fork requests are out at one forker
(the others wait their turn here), and each has FORK_DEADLINE_SECONDS from being sent to be
answered. Past it, or on any error writing to it, the forker is taken to be stuck: that
login (and every other it owed an answer) starts a process of its own, a new forker is
started for the logins after it, and the old one is retired: the sessions it forked play
on (their ends are learnt from their pidfds, and from /proc while it cannot reap them), and
it is ended with the last of them. A request it reads after its deadline is not forked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Coroutine
from typing import Any

from kismet_tui.door_env import from_our_packages

from .door_limits import (
    FORKER_MESSAGE_BYTES,
    SESSION_ADDRESS_SPACE,
    child_environment,
    die_with_parent,
)
from .session_sandbox import Rules

log = logging.getLogger("kismet.doors")

DOOR_SESSIONS = ("warm", "spawn")  # the values of --door-sessions
# How long a session waits for a (re)starting forker before starting a process of its own;
# a forker warms up in about a second on a quiet machine.
READY_WAIT_SECONDS = 10.0
# A forker not ready this long after its start is stuck warming up (a busy machine takes a
# few seconds): it is replaced, and that counts as a failed start.
WARM_UP_LIMIT_SECONDS = 60.0
# A fork request sent is answered within this (a fork takes some 10-50 ms), or its forker
# is stuck.
FORK_DEADLINE_SECONDS = 2.0
# Fork requests out at one forker at once: the socket holds this many with room to spare
# for signals, and the last one sent waits for IN_FLIGHT forks at most, well within its
# deadline. The others wait their turn here, not against a deadline.
IN_FLIGHT = 4
# A session's process has ended (its pidfd says so): its forker's word of its exit status
# is waited for this long, then read from /proc while it is not reaped (a stuck forker).
STATUS_WAIT_SECONDS = 1.0
# A forker that dies this many times in a row before it is ready is not started again (it
# cannot warm up here: an import fails, say); the doors then start their own processes.
FAILED_STARTS_GIVEN_UP = 3
FORKER_CODE = from_our_packages("from server.doors.door_forker import main; sys.exit(main())")


class ForkerUnavailable(Exception):
    """No warm parent could fork this session: the door starts a process of its own."""


class _TryAgain(Exception):
    """The forker a request waited for was retired before it was sent: ask the new one."""


class ForkedSession:
    """One session process forked by the warm parent, as the doors use a process: `pid`,
    `returncode` (None while it runs), `wait()`, and `signal_group(sig)`."""

    def __init__(self, parent: WarmParent, pid: int, pidfd: int) -> None:
        self.parent = parent  # the forker that forked it (a later one may follow)
        self.pid = pid
        self.pidfd: int | None = pidfd
        self.returncode: int | None = None
        self.exited = False  # the pidfd has said so; the status may follow
        loop = asyncio.get_running_loop()
        self._ended: asyncio.Future[int] = loop.create_future()
        self._status_later: asyncio.TimerHandle | None = None
        loop.add_reader(pidfd, self._pidfd_readable)
        # Set by the web door: its pipes, as asyncio.subprocess.Process has them.
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None

    async def wait(self) -> int:
        return await asyncio.shield(self._ended)

    def signal_group(self, signum: int) -> None:
        """`signum` to the session's process (by its pidfd) and its whole process group (by
        the forker, which knows the group is still this session's); ProcessLookupError once
        it has ended."""
        if self.exited or self.pidfd is None:
            raise ProcessLookupError(self.pid)
        try:
            signal.pidfd_send_signal(self.pidfd, signum)
        finally:
            self.parent.send_soon({"op": "signal", "pid": self.pid, "signal": int(signum)})

    def _pidfd_readable(self) -> None:
        self.exited = True
        self._close_pidfd()
        if self.parent.process.returncode is not None:
            self.ended(-signal.SIGKILL)  # its parent is gone: it died of the parent-death signal
        else:
            self._status_later = asyncio.get_running_loop().call_later(
                STATUS_WAIT_SECONDS, self._status_from_proc
            )

    def _status_from_proc(self) -> None:
        """No word from the forker (a stuck one does not reap): the exit status the kernel
        keeps for the unreaped process (/proc/PID/stat's exit_code)."""
        self._status_later = None
        if self._ended.done():
            return
        status = unreaped_status(self.pid)
        if status is not None:
            self.ended(status)
        else:  # (reaped just now: the forker's word is on its way; or not yet a zombie)
            self._status_later = asyncio.get_running_loop().call_later(
                STATUS_WAIT_SECONDS, self._status_from_proc
            )

    def ended(self, status: int) -> None:
        """Its exit status, as the forker reaped it."""
        self.exited = True
        self._close_pidfd()
        if self._status_later is not None:
            self._status_later.cancel()
            self._status_later = None
        if not self._ended.done():
            self.returncode = status
            self._ended.set_result(status)
            self.parent.session_ended(self)

    def _close_pidfd(self) -> None:
        if self.pidfd is not None:
            asyncio.get_running_loop().remove_reader(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = None


def unreaped_status(pid: int) -> int | None:
    """The exit status (as asyncio gives it) of `pid`, a child not yet reaped, from /proc;
    None unless it is such a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # fields[0] is the state (field 3 of proc(5)), fields[49] the exit_code (field 52).
    if len(fields) < 50 or fields[0] != b"Z":
        return None
    return os.waitstatus_to_exitcode(int(fields[49]))


# What the doors start a session as: a process of their own (spawn) or the forker's.
SessionProcess = asyncio.subprocess.Process | ForkedSession


def signal_group(process: SessionProcess, signum: int) -> None:
    """`signum` to a session's whole process group; ProcessLookupError once it has ended."""
    if isinstance(process, ForkedSession):
        process.signal_group(signum)
    else:
        os.killpg(process.pid, signum)


class WarmParent:
    """One forker process and the unix socket to it: the requests it owes an answer, the
    sessions it forked. Made by DoorForker, which retires it when it is stuck."""

    def __init__(
        self, owner: DoorForker, process: asyncio.subprocess.Process, sock: socket.socket
    ) -> None:
        self.owner = owner
        self.process = process
        self.sock: socket.socket | None = sock
        self.ready = False
        self.started = time.monotonic()
        self.retired = False  # no more forks asked of it
        self.sessions: dict[int, ForkedSession] = {}
        self.asked: dict[int, asyncio.Future[ForkedSession]] = {}
        self.room = asyncio.Condition()  # in_flight went down, or it was retired
        self.in_flight = 0  # fork requests taken up (sent, or being sent)
        self._writers: list[asyncio.Future[None]] = []  # waiting for room in the socket
        self._sending: set[asyncio.Task[None]] = set()  # send_soon's
        sock.setblocking(False)
        asyncio.get_running_loop().add_reader(sock.fileno(), self._readable)

    def warming_for(self) -> float:
        """Seconds since it started, while it is not ready yet (0 once it is)."""
        return 0.0 if self.ready else time.monotonic() - self.started

    async def fork(self, asked: int, request: dict[str, object], fds: list[int]) -> ForkedSession:
        """Ask for a fork (`request`, with its `fds`) once fewer than IN_FLIGHT are out, and
        wait for the answer: FORK_DEADLINE_SECONDS after it goes, or ForkerUnavailable (and
        this forker is retired). _TryAgain when it was retired while this waited its turn."""
        async with self.room:
            await self.room.wait_for(lambda: self.retired or self.in_flight < IN_FLIGHT)
            if self.retired:
                raise _TryAgain()
            self.in_flight += 1
        answer = self.asked[asked] = asyncio.get_running_loop().create_future()
        try:
            deadline = time.monotonic() + FORK_DEADLINE_SECONDS
            # (the forker does not fork it after its deadline: see door_forker.py)
            message = dict(request, op="fork", id=asked, deadline=deadline)
            try:
                return await asyncio.wait_for(
                    self._asked_for(answer, message, fds), FORK_DEADLINE_SECONDS
                )
            except TimeoutError:
                self.owner.retire(
                    self, f"it did not answer a login within {FORK_DEADLINE_SECONDS:g} s"
                )
                raise ForkerUnavailable("the warm parent did not answer in time") from None
            except ForkerUnavailable as exc:
                self.owner.retire(self, str(exc))
                raise
        finally:
            self.asked.pop(asked, None)
            async with self.room:
                self.in_flight -= 1
                self.room.notify_all()

    async def _asked_for(
        self, answer: asyncio.Future[ForkedSession], message: dict[str, object], fds: list[int]
    ) -> ForkedSession:
        await self.write(message, fds)
        return await answer

    async def write(self, message: dict[str, object], fds: list[int] | None = None) -> None:
        """One message to the forker, waiting while its socket is full (never dropped);
        ForkerUnavailable when it cannot be written (the forker has gone)."""
        payload = json.dumps(message).encode()
        while True:
            if self.sock is None:
                raise ForkerUnavailable("the warm parent is not running")
            try:
                socket.send_fds(self.sock, [payload], fds or [])
                return
            except BlockingIOError:  # full: the forker is behind; wait for room
                await self._room_in_socket()
            except OSError as exc:
                raise ForkerUnavailable(str(exc)) from exc

    def _room_in_socket(self) -> asyncio.Future[None]:
        assert self.sock is not None
        waiting = asyncio.get_running_loop().create_future()
        self._writers.append(waiting)
        if len(self._writers) == 1:
            asyncio.get_running_loop().add_writer(self.sock.fileno(), self._writable)
        return waiting

    def _writable(self) -> None:
        self._wake_writers(None)

    def _wake_writers(self, error: Exception | None) -> None:
        if self.sock is not None:
            asyncio.get_running_loop().remove_writer(self.sock.fileno())
        writers, self._writers = self._writers, []
        for waiting in writers:
            if not waiting.done():
                if error is None:
                    waiting.set_result(None)
                else:
                    waiting.set_exception(error)

    @property
    def unsent(self) -> int:
        """Messages of send_soon still waiting for room in the socket."""
        return len(self._sending)

    def send_soon(self, message: dict[str, object]) -> None:
        """`message` (no fds) to the forker as soon as its socket has room."""
        task = asyncio.ensure_future(self._send_quietly(message))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send_quietly(self, message: dict[str, object]) -> None:
        with contextlib.suppress(ForkerUnavailable):  # (gone: so are its sessions)
            await self.write(message)

    def _readable(self) -> None:
        assert self.sock is not None  # (the reader is removed with the socket)
        try:
            data, fds, _flags, _address = socket.recv_fds(self.sock, FORKER_MESSAGE_BYTES, 1)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        if not data:
            self.lost()
            return
        message = json.loads(data)
        op = message.get("op")
        if op == "ready":
            self.ready = True
            self.owner.parent_ready(self)
        elif op == "forked" and fds:
            session = ForkedSession(self, int(message["pid"]), fds[0])
            self.sessions[session.pid] = session
            answer = self.asked.get(message.get("id"))
            if answer is not None and not answer.done():
                answer.set_result(session)
            else:  # (its door stopped waiting: end it)
                with contextlib.suppress(ProcessLookupError):
                    session.signal_group(signal.SIGKILL)
            fds = fds[1:]
        elif op == "failed":
            answer = self.asked.get(message.get("id"))
            if answer is not None and not answer.done():
                answer.set_exception(ForkerUnavailable(str(message.get("error"))))
        elif op == "ended":
            reaped = self.sessions.get(int(message["pid"]))
            if reaped is not None:
                reaped.ended(int(message["status"]))
        for fd in fds:
            os.close(fd)

    def session_ended(self, session: ForkedSession) -> None:
        self.sessions.pop(session.pid, None)
        if self.retired and not self.sessions:
            self.end()

    def stop_asking(self) -> None:
        """Retired: no more forks of it. Those waiting their turn ask the next forker; those
        owed an answer start their own process."""
        self.retired = True
        for answer in self.asked.values():
            if not answer.done():
                answer.set_exception(ForkerUnavailable("the warm parent was replaced"))
        self.owner.keep(self._wake_turns())
        if not self.sessions:
            self.end()

    async def _wake_turns(self) -> None:
        async with self.room:
            self.room.notify_all()

    def end(self) -> None:
        """End this forker now (stuck or not), and with it any session it still has."""
        self.lost()
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    def lost(self) -> None:
        """The socket to the forker is closed: it has died, or is being ended (reading the
        socket's end, it kills its sessions and exits)."""
        if self.sock is not None:
            self._wake_writers(ForkerUnavailable("the warm parent ended"))
            asyncio.get_running_loop().remove_reader(self.sock.fileno())
            self.sock.close()
            self.sock = None
        for answer in self.asked.values():
            if not answer.done():
                answer.set_exception(ForkerUnavailable("the warm parent ended"))


class DoorForker:
    """The warm parent, kept running for the doors of one host: `start()` it, `spawn()`
    sessions, `stop()` it (and with it every session it forked). One forker at a time takes
    fork requests (`parent`); a retired one lives on while its sessions play."""

    def __init__(self, label: str = "") -> None:
        self.label = label  # (shown in its command line: which host it serves)
        self.parent: WarmParent | None = None
        self.retired: set[WarmParent] = set()
        self.ready = asyncio.Event()  # the current forker is ready
        self.restarts = 0
        self.failed_starts = 0  # deaths in a row before being ready
        self.given_up = asyncio.Event()  # set after FAILED_STARTS_GIVEN_UP of them
        self._next_id = 0
        self._stopping = False
        self._watchers: set[asyncio.Task[None]] = set()
        # Its other tasks (a forker started again, a retired one's waiters woken): kept, so
        # the loop cannot collect one mid-flight, and waited for by stop.
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        """The current forker's process."""
        return self.parent.process if self.parent is not None else None

    async def start(self) -> None:
        """Start a forker (it warms up on its own; spawn waits for it)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                FORKER_CODE,
                str(theirs.fileno()),
                self.label,
                pass_fds=(theirs.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                env=child_environment(""),
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.parent = WarmParent(self, process, ours)
        watcher = asyncio.create_task(self._watch(self.parent))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def spawn(
        self,
        argv: list[str],
        env: dict[str, str],
        fds: tuple[int, int, int],
        *,
        terminal: bool,
        address_space: int = SESSION_ADDRESS_SPACE,
        confinement: Rules | None = None,
    ) -> ForkedSession:
        """A session running `kismet-join ARGV` on `fds` (its 0, 1, 2; the caller keeps and
        closes its own copies), confined to `confinement` (server/doors/session_sandbox.py): forked
        by the warm parent, or ForkerUnavailable."""
        request: dict[str, object] = {
            "argv": argv,
            "env": env,
            "terminal": terminal,
            "address_space": address_space,
            "confine": confinement,
        }
        while True:
            if self._stopping or self.failed_starts >= FAILED_STARTS_GIVEN_UP:
                raise ForkerUnavailable(
                    "the doors are closing" if self._stopping else "the warm parent could not start"
                )
            await self._ready_or_given_up()
            parent = self.parent
            if not self.ready.is_set() or parent is None:
                if parent is not None and parent.warming_for() > WARM_UP_LIMIT_SECONDS:
                    self.retire(parent, f"it did not warm up within {WARM_UP_LIMIT_SECONDS:g} s")
                raise ForkerUnavailable("the warm parent is not ready")
            self._next_id += 1
            try:
                return await parent.fork(self._next_id, request, list(fds))
            except _TryAgain:
                continue

    async def _ready_or_given_up(self) -> None:
        waits = {
            asyncio.ensure_future(self.ready.wait()),
            asyncio.ensure_future(self.given_up.wait()),
        }
        _done, pending = await asyncio.wait(
            waits, timeout=READY_WAIT_SECONDS, return_when=asyncio.FIRST_COMPLETED
        )
        for waiting in pending:
            waiting.cancel()

    def parent_ready(self, parent: WarmParent) -> None:
        if parent is self.parent:
            self.failed_starts = 0
            self.ready.set()

    def retire(self, parent: WarmParent, why: str) -> None:
        """`parent` is stuck (`why`): a new forker takes the logins after it; it lives on
        while its sessions play."""
        if parent.retired:
            return
        log.warning(
            "the door sessions' warm parent (pid %s) is replaced: %s; the sessions it runs play on",
            parent.process.pid,
            why,
        )
        if parent is self.parent:
            self.parent = None
            self.ready.clear()
            if not parent.ready:
                self.failed_starts += 1
        self.retired.add(parent)
        parent.stop_asking()
        if self.failed_starts >= FAILED_STARTS_GIVEN_UP:
            log.error(
                "the door sessions' warm parent cannot warm up: each session starts a "
                "process of its own"
            )
            self.given_up.set()
        elif not self._stopping and self.parent is None:
            self.restarts += 1
            self.keep(self._start_again())

    def keep(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` as a task of the forker's, waited for by stop."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start_again(self) -> None:
        if self._stopping:
            return
        try:
            await self.start()
        except OSError as exc:
            log.error("cannot start a new warm parent (%s): the doors start their own", exc)

    async def _watch(self, parent: WarmParent) -> None:
        code = await parent.process.wait()
        current = parent is self.parent
        if current and not parent.ready:
            self.failed_starts += 1
        if current:
            self.ready.clear()
        parent.lost()
        self.retired.discard(parent)
        # Its children died with it (their parent-death signal); those whose end the pidfd
        # has shown already get it now, the others as their pidfd shows it.
        for session in list(parent.sessions.values()):
            if session.exited:
                session.ended(-signal.SIGKILL)
        if self._stopping or not current:
            return
        self.parent = None
        if self.failed_starts >= FAILED_STARTS_GIVEN_UP:
            log.error(
                "the door sessions' warm parent cannot start (code %s): each session "
                "starts a process of its own",
                code,
            )
            self.given_up.set()
            return
        self.restarts += 1
        log.warning("the door sessions' warm parent ended (code %s): starting a new one", code)
        await self._start_again()

    async def stop(self) -> None:
        """End every forker, and with each every session it forked."""
        self._stopping = True
        # A forker being started again is let finish starting, and then ended with the others.
        await asyncio.gather(*self._tasks, return_exceptions=True)
        parents = [parent for parent in (self.parent, *self.retired) if parent is not None]
        for parent in parents:
            parent.lost()  # it reads the end of its socket, kills its sessions and exits
        for parent in parents:
            if parent.process.returncode is None:
                try:
                    await asyncio.wait_for(parent.process.wait(), 10)
                except TimeoutError:
                    parent.process.kill()  # (stuck: its sessions die with it)
                    await parent.process.wait()
        for watcher in list(self._watchers):
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
