"""One browser visitor's game: the `kismet-join` process the web door runs for them, what of
their websocket reaches it, and its end.

textual-serve's AppService runs the app through a shell and forwards whatever the socket
sends as fast as it comes. Here the app is the door's direct child (no shell), in a session
of its own (so its whole process group can be killed), under the door's limits (an
address-space ceiling, or server/doors/memory_watch.py's watch where the system has none, and
death with the host: door_limits.limit_session_child). What the
visitor sends is bounded: sizes are clamped, every message is paid for from a budget of
bytes per second, and while the app has not read what it was given (its stdin backlog is
over a bound) the door stops reading the socket, so a flood slows only its sender (both
doors' rules, and whether an app died of its memory limit: server/doors/session_policy.py). While it
waits the door still watches the connection: a visitor who leaves mid-flood ends their app
within seconds. An app that dies (its memory limit, say) leaves the visitor words, not a
frozen screen, and so does one wedged near its limit (session_policy.WedgeWatch).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import select
import shlex
import signal
import sys
import textwrap
import time
from collections.abc import Awaitable

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from kismet_tui.door_env import TYPING_META, from_our_packages

from .door_limits import (
    SESSION_ADDRESS_SPACE,
    address_space_limited,
    clamp_size,
    limit_session_child,
)
from .door_starts import StartTurn
from .memory_watch import MemoryWatch
from .session_policy import (
    INPUT_BACKLOG,
    INPUT_RESUME,
    MemoryLook,
    WedgeWatch,
    died_of_its_memory,
    input_budget,
)
from .session_sandbox import Rules
from .warm_doors import DoorForker, ForkedSession, ForkerUnavailable, SessionProcess, signal_group

log = logging.getLogger("kismet.web")

KEY_PIECE = 512  # a paste is forwarded (and paid for) in pieces of this many characters
# How often the door looks whether a visitor it is holding back has gone.
PEER_CHECK_SECONDS = 0.25
# How long an app asked to quit may take before its process group is killed.
QUIT_GRACE_SECONDS = 2.0
STDERR_KEPT = 8 * 1024  # the end of the app's error output, to tell why it stopped
# The visitor's app, started anew (--door-sessions spawn, or no warm parent at hand). The
# forked one runs kismet_tui.door_child.run, which ends a MemoryError with OUT_OF_MEMORY.
JOIN_CODE = from_our_packages("from kismet_tui.door_child import run; sys.exit(run(sys.argv[1:]))")

MEMORY_WORDS = (
    "Your game used more memory than this host gives one player, so it was "
    "stopped. Reload the page and type the same name to take your seat back."
)
CRASH_WORDS = (
    "Your game stopped unexpectedly. Reload the page and type the same name to take your seat back."
)


class VisitorLeft(Exception):
    """The visitor's connection went while the door was holding their input back."""


def peer_hung_up(request: web.Request) -> bool:
    """The visitor's side of the connection has closed, even while the door is not reading
    it (its data is still queued): the kernel says so with POLLRDHUP."""
    transport = request.transport
    if transport is None or transport.is_closing():
        return True
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    rdhup = getattr(select, "POLLRDHUP", None)
    if rdhup is None:  # (Linux only: elsewhere the door sees it when it reads again)
        return False
    poller = select.poll()
    poller.register(sock.fileno(), rdhup)
    return bool(poller.poll(0))


def terminal_words(text: str, width: int = 60) -> bytes:
    """`text` as the visitor's terminal shows it: a clean screen (the app may have left it in
    its alternate screen), the words wrapped, nothing else."""
    lines = textwrap.wrap(text, width)
    return b"\x1bc\r\n" + "\r\n".join(f"  {line}" for line in lines).encode() + b"\r\n"


async def tell_and_close(socket: web.WebSocketResponse, text: str) -> None:
    """Leave the visitor `text` on their screen and close their socket."""
    with contextlib.suppress(Exception):  # (they may have gone already: nothing to tell)
        await socket.send_bytes(terminal_words(text))
        await socket.close()


class VisitorSession(AppService):
    """The app process of one visitor, started by `start(cols, rows)`, fed by `play(socket)`
    and always ended by `end()`. It runs `kismet-join JOIN_ARGS`: forked by the warm parent
    when there is one (`forker`, server/doors/warm_doors.py), else as a new interpreter."""

    def __init__(
        self,
        join_args: list[str],
        environment: dict[str, str],
        request: web.Request,
        socket: web.WebSocketResponse,
        *,
        download_manager: DownloadManager,
        address_space: int = SESSION_ADDRESS_SPACE,
        forker: DoorForker | None = None,
        confinement: Rules | None = None,
        turn: StartTurn | None = None,
    ) -> None:
        async def close() -> None:  # (aiohttp's close answers a bool nobody reads)
            await socket.close()

        spawn_command = [sys.executable, "-c", JOIN_CODE, *join_args]
        super().__init__(
            shlex.join(spawn_command),
            write_bytes=socket.send_bytes,
            write_str=socket.send_str,
            close=close,
            download_manager=download_manager,
            debug=False,
        )
        self.join_args = join_args
        self.spawn_command = spawn_command
        self.environment = environment
        self.request = request
        self.socket = socket
        self.address_space = address_space
        self.forker = forker
        self.confinement = confinement  # the files it may open (server/doors/session_sandbox.py)
        self.turn = turn  # its start-up's turn (server/doors/door_starts.py), told what it draws
        self.app: SessionProcess | None = None
        self.budget = input_budget()  # what the visitor sends is paid for, in bytes
        self.peer_checked = time.monotonic()
        self.stderr_tail = b""
        self.leaving = False
        self.memory = MemoryLook()  # whether it came near its memory limit while it drew
        # Ends it near its limit once it answers neither keys nor a new size.
        self.wedge = WedgeWatch(self.memory, self._over_memory)
        self.size = (0, 0)  # the app's window, as last sent to it
        self.memory_watch: MemoryWatch | None = None  # where no RLIMIT_AS (macOS)
        self.over_memory = False  # a watch ended it at (or past) its limit

    @property
    def pid(self) -> int | None:
        return self.app.pid if self.app is not None else None

    async def start(self, width: int, height: int) -> None:
        self.size = (width, height)
        await self._open_app(width, height)
        self._task = asyncio.create_task(self.run())

    async def _open_app(self, width: int, height: int) -> None:
        environment = self._build_environment(width, height) | self.environment
        process = await self._forked(environment) or await asyncio.create_subprocess_exec(
            *self.spawn_command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
            preexec_fn=functools.partial(limit_session_child, self.address_space, self.confinement),
        )
        self.app = process
        if not address_space_limited():
            self.memory_watch = MemoryWatch(process.pid, self.address_space, self._over_memory)
        assert process.stdin is not None
        self._stdin = process.stdin
        # The backlog rule, kept by the pipe's own flow control: past INPUT_BACKLOG unread,
        # drain() (and so the door's reading of the socket) waits until INPUT_RESUME.
        process.stdin.transport.set_write_buffer_limits(  # type: ignore[attr-defined]
            high=INPUT_BACKLOG, low=INPUT_RESUME
        )

    async def _forked(self, environment: dict[str, str]) -> ForkedSession | None:
        """The visitor's app forked by the warm parent on three new pipes (its stdin, stdout
        and stderr); None when there is none or it cannot (start() then starts one)."""
        if self.forker is None:
            return None
        loop = asyncio.get_running_loop()
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        ours = [stdin_write, stdout_read, stderr_read]
        try:
            try:
                session = await self.forker.spawn(
                    self.join_args,
                    environment,
                    (stdin_read, stdout_write, stderr_write),
                    terminal=False,
                    address_space=self.address_space,
                    confinement=self.confinement,
                )
            finally:
                for fd in (stdin_read, stdout_write, stderr_write):
                    os.close(fd)
            session.stdout = await read_pipe(loop, stdout_read)
            session.stderr = await read_pipe(loop, stderr_read)
            ours = []
            session.stdin = await write_pipe(loop, stdin_write)
            return session
        except ForkerUnavailable as exc:
            log.warning("a web visitor's game starts a process of its own: %s", exc)
            return None
        finally:
            for fd in ours:
                os.close(fd)

    # ---- the visitor to the app ------------------------------------------------------------
    async def play(self, socket: web.WebSocketResponse) -> None:
        """Forward the visitor's messages until they go (or the app ends and closes them)."""
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            kind, data = parse_envelope(message.data)
            if kind == "stdin" and isinstance(data, str):
                # A paste goes in pieces, each paid for: the app gets keys at the budget's
                # rate, never thousands at once (each key is an event it queues).
                for start in range(0, len(data), KEY_PIECE):
                    await self._forward(
                        b"D", data[start : start + KEY_PIECE].encode("utf-8", "replace"), asks=True
                    )
            elif kind == "resize" and isinstance(data, dict):
                cols, rows = clamp_size(data.get("width"), data.get("height"))
                # (Only a new size asks the app to draw: the same one may change nothing.)
                asks, self.size = (cols, rows) != self.size, (cols, rows)
                await self._forward(
                    b"M",
                    json.dumps({"type": "resize", "width": cols, "height": rows}).encode(),
                    asks=asks,
                )
            elif kind in ("blur", "focus"):
                await self._forward(b"M", json.dumps({"type": kind}).encode())
            else:
                await self._pay(len(message.data))  # pings and the unknown cost too
                if kind == "ping" and isinstance(data, str):
                    await socket.send_json(["pong", data])

    async def _pay(self, size: int) -> None:
        delay = self.budget.owe(size, time.monotonic())
        if delay:
            await self._hold_back(asyncio.sleep(delay))

    async def _forward(self, kind: bytes, payload: bytes, *, asks: bool = False) -> None:
        """`payload` to the app as a packet of `kind`; `asks`: it is input the app answers
        by drawing (keys, a new size), which the wedge watch waits for."""
        await self._pay(len(payload))
        if self.app is None or self.app.returncode is not None:
            return
        self.stdin.write(self.encode_packet(kind, payload))  # type: ignore[arg-type]
        if asks:
            self.wedge.asked(self.pid)
        try:
            await self._hold_back(self.stdin.drain())
        except ConnectionError:
            pass  # the app has just ended: run() tells the visitor why and closes their socket

    async def _hold_back(self, waiting: Awaitable[None]) -> None:
        """Wait for `waiting` (the budget, or the app reading its backlog) without reading the
        socket, but not past the visitor leaving: held back, the door still looks at least
        every PEER_CHECK_SECONDS whether they have gone (a flood queued in the socket may
        hold many short waits)."""
        task = asyncio.ensure_future(waiting)
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=PEER_CHECK_SECONDS)
                now = time.monotonic()
                if now - self.peer_checked >= PEER_CHECK_SECONDS:
                    self.peer_checked = now
                    if peer_hung_up(self.request):
                        raise VisitorLeft()
            task.result()
        finally:
            task.cancel()

    # ---- the app to the visitor ------------------------------------------------------------
    async def run(self) -> None:
        """Pass the app's screen and messages to the visitor; when it ends by itself, say why.
        (Replaces AppService.run, which prints the app's errors on the host's own output.)"""
        process = self.app
        assert process is not None and process.stdout is not None and process.stderr is not None
        stdout = process.stdout
        keeping = asyncio.ensure_future(self._keep_stderr_tail(process.stderr))
        try:
            for _ in range(10):  # the app's first line says it is a Textual app
                line = await stdout.readline()
                if not line or line == b"__GANGLION__\n":
                    break
            while True:
                kind = await stdout.readexactly(1)
                size = int.from_bytes(await stdout.readexactly(4), "big")
                payload = await stdout.readexactly(size)
                self.wedge.drew(self.pid)
                # While the visitor's socket takes it, the door reads nothing more of the
                # app: what silence follows is the door's, not the app's.
                self.wedge.holding(True)
                if kind == b"D":
                    await self.on_data(payload)
                elif kind == b"M":
                    await self.on_meta(payload)
                elif kind == b"P":
                    await self.on_packed(payload)
                self.wedge.holding(False)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the app's output ended, or the visitor's socket did
        finally:
            self.wedge.stop()
            with contextlib.suppress(asyncio.CancelledError):
                await keeping
        if not self.leaving:
            await self._ended_by_itself(await process.wait())

    async def on_data(self, payload: bytes) -> None:
        if self.turn is not None:
            self.turn.drew()
        await super().on_data(payload)

    async def on_meta(self, data: bytes) -> None:
        meta = json.loads(data)
        # The app says "exit" just before its process ends, well or not (Textual says it
        # after an error too): the socket is closed by run(), once the end tells which.
        if meta.get("type") == "exit":
            return
        if meta.get("type") == TYPING_META:  # a text field has the focus, or has lost it
            await self.remote_write_str(json.dumps([TYPING_META, meta.get("typing") is True]))
            return
        await super().on_meta(data)

    async def _keep_stderr_tail(self, stderr: asyncio.StreamReader) -> None:
        while data := await stderr.read(4096):
            self.stderr_tail = (self.stderr_tail + data)[-STDERR_KEPT:]

    def _over_memory(self) -> None:
        """The memory watch found the app past its limit, or the wedge watch found it near
        it and silent: end it, as out of memory (as Linux's limit would have)."""
        if self.app is not None and self.app.returncode is None:
            self.over_memory = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal_group(self.app, signal.SIGKILL)

    async def _ended_by_itself(self, returncode: int) -> None:
        if returncode == 0:
            await self.socket.close()  # the player quit
            return
        out_of_memory = died_of_its_memory(
            returncode,
            watched_over=self.over_memory,
            near_limit=self.memory.near,
            last_words=self.stderr_tail,
        )
        last_line = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()[-1:] or ["-"]
        log.warning(
            "a web visitor's game (pid %s) ended with code %s%s: %s",
            self.pid,
            returncode,
            " at its memory limit" if out_of_memory else "",
            last_line[0][:200],
        )
        await tell_and_close(self.socket, MEMORY_WORDS if out_of_memory else CRASH_WORDS)

    # ---- the end ---------------------------------------------------------------------------
    async def end(self) -> None:
        """The visitor has gone: ask the app to quit, give it a moment, then kill its whole
        process group, whatever it is doing, and reap it."""
        self.leaving = True
        self.wedge.stop()  # (quitting, it may draw no more: the door ends it anyway)
        process = self.app
        if process is None:
            return
        try:
            if process.returncode is None:
                with contextlib.suppress(Exception):  # (no drain: a flooded app's stdin is full)
                    self.stdin.write(self.encode_packet(b"M", b'{"type": "quit"}'))  # type: ignore[arg-type]
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(process.wait(), QUIT_GRACE_SECONDS)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal_group(process, signal.SIGKILL)
        await process.wait()
        if self.memory_watch is not None:
            self.memory_watch.stop()
        if self._stdin is not None:
            self._stdin.close()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task


async def read_pipe(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamReader:
    """A stream over the read end `fd` of a pipe (asyncio.subprocess makes the same)."""
    reader = asyncio.StreamReader(loop=loop)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader, loop=loop), os.fdopen(fd, "rb", buffering=0)
    )
    return reader


async def write_pipe(loop: asyncio.AbstractEventLoop, fd: int) -> asyncio.StreamWriter:
    """A stream over the write end `fd` of a pipe, with drain() as asyncio.subprocess has it."""
    protocol = asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop)
    transport, _ = await loop.connect_write_pipe(lambda: protocol, os.fdopen(fd, "wb", buffering=0))
    return asyncio.StreamWriter(transport, protocol, None, loop)


def parse_envelope(text: str) -> tuple[str, object]:
    """A message of the page's socket, `["kind", data]`; ("", None) for anything else."""
    try:
        envelope = json.loads(text)
    except ValueError:
        return "", None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        return "", None
    return envelope[0], envelope[1] if len(envelope) > 1 else None
