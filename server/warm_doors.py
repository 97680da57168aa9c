"""The host's side of the warm parent of door sessions (server/door_forker.py): starting it,
asking it for a session, watching and ending that session, and a new parent when one dies.

`kismet-host --door-sessions warm` (the default) starts one DoorForker when a door opens;
both doors ask it for their sessions' processes (`spawn`). Each is a ForkedSession: not the
host's child but the forker's, so the host watches it by a pidfd (readable when it has
ended), signals it through that pidfd (never a reused pid), and learns its exit status from
the forker, which reaps it. `--door-sessions spawn` keeps the doors starting a new
interpreter per session (server/pty_app.py, server/web_session.py), as before.

If the forker dies, a new one is started at once; a session asked for meanwhile waits for
it, and the doors start a process of their own (ForkerUnavailable) when none comes in time.
The players notice a slower login, nothing more.
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
from typing import Union

from .door_limits import FORKER_MESSAGE_BYTES, SESSION_ADDRESS_SPACE, child_environment, die_with_parent

log = logging.getLogger("kismet.doors")

DOOR_SESSIONS = ("warm", "spawn")   # the values of --door-sessions
# How long a session waits for a (re)starting forker before starting a process of its own;
# a forker warms up in about a second on a quiet machine.
READY_WAIT_SECONDS = 30.0
# A forker that dies this many times in a row before it is ready is not started again (it
# cannot warm up here: an import fails, say); the doors then start their own processes.
FAILED_STARTS_GIVEN_UP = 3
FORKER_CODE = "import sys; from server.door_forker import main; sys.exit(main())"


class ForkerUnavailable(Exception):
    """No warm parent could fork this session: the door starts a process of its own."""


class ForkedSession:
    """One session process forked by the warm parent, as the doors use a process: `pid`,
    `returncode` (None while it runs), `wait()`, and `signal_group(sig)`."""

    def __init__(self, forker: DoorForker, pid: int, pidfd: int) -> None:
        self.forker = forker
        self.parent = forker.process         # the forker that forked it (a later one may follow)
        self.pid = pid
        self.pidfd: int | None = pidfd
        self.returncode: int | None = None
        self.exited = False                  # the pidfd has said so; the status may follow
        self._ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().add_reader(pidfd, self._pidfd_readable)
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
            self.forker.send({"op": "signal", "pid": self.pid, "signal": int(signum)})

    def _pidfd_readable(self) -> None:
        self.exited = True
        self._close_pidfd()
        if self.parent is None or self.parent.returncode is not None:
            self.ended(-signal.SIGKILL)   # its parent is gone: it died of the parent-death signal

    def ended(self, status: int) -> None:
        """Its exit status, as the forker reaped it."""
        self.exited = True
        self._close_pidfd()
        if not self._ended.done():
            self.returncode = status
            self._ended.set_result(status)
            self.forker.sessions.pop(self.pid, None)

    def _close_pidfd(self) -> None:
        if self.pidfd is not None:
            asyncio.get_running_loop().remove_reader(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = None


# What the doors start a session as: a process of their own (spawn) or the forker's.
SessionProcess = Union[asyncio.subprocess.Process, ForkedSession]


def signal_group(process: SessionProcess, signum: int) -> None:
    """`signum` to a session's whole process group; ProcessLookupError once it has ended."""
    if isinstance(process, ForkedSession):
        process.signal_group(signum)
    else:
        os.killpg(process.pid, signum)


class DoorForker:
    """The warm parent, kept running for the doors of one host: `start()` it, `spawn()`
    sessions, `stop()` it (and with it every session it forked)."""

    def __init__(self, label: str = "") -> None:
        self.label = label              # (shown in its command line: which host it serves)
        self.process: asyncio.subprocess.Process | None = None
        self.sock: socket.socket | None = None
        self.ready = asyncio.Event()
        self.sessions: dict[int, ForkedSession] = {}
        self.restarts = 0
        self.failed_starts = 0            # deaths in a row before being ready
        self.given_up = asyncio.Event()   # set after FAILED_STARTS_GIVEN_UP of them
        self._asked: dict[int, asyncio.Future[ForkedSession]] = {}
        self._next_id = 0
        self._stopping = False
        self._watcher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the forker (it warms up on its own; spawn waits for it)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", FORKER_CODE, str(theirs.fileno()), self.label,
                pass_fds=(theirs.fileno(),), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, env=child_environment(""),
                start_new_session=True, preexec_fn=die_with_parent)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours
        asyncio.get_running_loop().add_reader(ours.fileno(), self._readable)
        self._watcher = asyncio.create_task(self._watch(self.process))

    async def spawn(self, argv: list[str], env: dict[str, str], fds: tuple[int, int, int], *,
                    terminal: bool, address_space: int = SESSION_ADDRESS_SPACE) -> ForkedSession:
        """A session running `kismet-join ARGV` on `fds` (its 0, 1, 2; the caller keeps and
        closes its own copies): forked by the warm parent, or ForkerUnavailable."""
        if self._stopping or self.failed_starts >= FAILED_STARTS_GIVEN_UP:
            raise ForkerUnavailable("the doors are closing" if self._stopping
                                    else "the warm parent could not start")
        waits = {asyncio.ensure_future(self.ready.wait()), asyncio.ensure_future(self.given_up.wait())}
        _done, pending = await asyncio.wait(waits, timeout=READY_WAIT_SECONDS,
                                            return_when=asyncio.FIRST_COMPLETED)
        for waiting in pending:
            waiting.cancel()
        if not self.ready.is_set():
            raise ForkerUnavailable("the warm parent is not ready")
        self._next_id += 1
        asked = self._next_id
        answer = self._asked[asked] = asyncio.get_running_loop().create_future()
        try:
            self.send({"op": "fork", "id": asked, "argv": argv, "env": env, "terminal": terminal,
                       "address_space": address_space}, list(fds))
            return await answer
        finally:
            self._asked.pop(asked, None)

    def send(self, message: dict[str, object], fds: list[int] | None = None) -> None:
        if self.sock is None:
            raise ForkerUnavailable("the warm parent is not running")
        try:
            socket.send_fds(self.sock, [json.dumps(message).encode()], fds or [])
        except OSError as exc:   # (gone, or so far behind that its socket is full)
            raise ForkerUnavailable(str(exc)) from exc

    def _readable(self) -> None:
        assert self.sock is not None   # (the reader is removed with the socket)
        try:
            data, fds, _flags, _address = socket.recv_fds(self.sock, FORKER_MESSAGE_BYTES, 1)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        if not data:
            self._lost()
            return
        message = json.loads(data)
        op = message.get("op")
        if op == "ready":
            self.failed_starts = 0
            self.ready.set()
        elif op == "forked" and fds:
            session = ForkedSession(self, int(message["pid"]), fds[0])
            self.sessions[session.pid] = session
            answer = self._asked.get(message.get("id"))
            if answer is not None and not answer.done():
                answer.set_result(session)
            else:   # (its door stopped waiting: end it)
                with contextlib.suppress(ProcessLookupError):
                    session.signal_group(signal.SIGKILL)
            fds = fds[1:]
        elif op == "failed":
            answer = self._asked.get(message.get("id"))
            if answer is not None and not answer.done():
                answer.set_exception(ForkerUnavailable(str(message.get("error"))))
        elif op == "ended":
            reaped = self.sessions.get(int(message["pid"]))
            if reaped is not None:
                reaped.ended(int(message["status"]))
        for fd in fds:
            os.close(fd)

    def _lost(self) -> None:
        """The socket to the forker has closed: it has died (or is being stopped)."""
        self.ready.clear()
        if self.sock is not None:
            asyncio.get_running_loop().remove_reader(self.sock.fileno())
            self.sock.close()
            self.sock = None
        for answer in self._asked.values():
            if not answer.done():
                answer.set_exception(ForkerUnavailable("the warm parent ended"))

    async def _watch(self, process: asyncio.subprocess.Process) -> None:
        code = await process.wait()
        if not self.ready.is_set():
            self.failed_starts += 1
        self._lost()
        # Its children died with it (their parent-death signal); those whose end the pidfd
        # has shown already get it now, the others as their pidfd shows it.
        for session in list(self.sessions.values()):
            if session.exited:
                session.ended(-signal.SIGKILL)
        if self._stopping:
            return
        if self.failed_starts >= FAILED_STARTS_GIVEN_UP:
            log.error("the door sessions' warm parent cannot start (code %s): each session "
                      "starts a process of its own", code)
            self.given_up.set()
            return
        self.restarts += 1
        log.warning("the door sessions' warm parent ended (code %s): starting a new one", code)
        try:
            await self.start()
        except OSError as exc:
            log.error("cannot start a new warm parent (%s): the doors start their own", exc)

    async def stop(self) -> None:
        """End the forker, and with it every session it forked."""
        self._stopping = True
        if self.sock is not None:
            self._lost()   # it reads the end of its socket, kills its sessions and exits
        if self.process is not None and self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self._watcher is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
