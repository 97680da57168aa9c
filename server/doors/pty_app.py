"""One remote player's `kismet-join`, run on a pseudo-terminal of its own.

The ssh server starts one of these per session and pipes bytes between the ssh channel and
the pty's master side: the player's keys go in, the app's screen comes out (its first frames also tell the doors' start queue when its
start-up is over, server/doors/door_starts.py), a window change
becomes a TIOCSWINSZ (the kernel then sends the app SIGWINCH). The app is an ordinary client
of the host over loopback, so it crashes, leaks or blocks alone, never the host or another
player, and it needs no code of its own for being remote.

What a session may cost is bounded here: the child runs under door_limits' address-space
limit (or, where the system has none, server/doors/memory_watch.py's watch) and parent-death
signal, an app wedged near that limit (silent to keys and a new size) is ended as out of
memory, its window is clamped, and the keys reach it at a bounded
rate, the rest waiting in a bounded backlog the door stops reading beyond (both doors'
rules: server/doors/session_policy.py).
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import logging
import os
import pty
import signal
import struct
import sys
import termios
import time
from collections.abc import Callable, Mapping

from kismet_tui.door_env import OUT_OF_MEMORY, from_our_packages

from .door_limits import (
    SESSION_ADDRESS_SPACE,
    address_space_limited,
    child_environment,
    clamp_size,
    limit_session_child,
)
from .door_starts import StartTurn
from .memory_watch import MemoryWatch
from .session_policy import (
    INPUT_BYTES_PER_SECOND,
    MemoryLook,
    WedgeWatch,
    input_budget,
    read_again,
)
from .session_sandbox import Rules
from .warm_doors import DoorForker, ForkerUnavailable, SessionProcess, signal_group

log = logging.getLogger("kismet.ssh")

# The child takes the pty as its controlling terminal (it is a session leader through
# start_new_session), so window changes reach it as SIGWINCH and a hang-up as SIGHUP.
JOIN_CODE = from_our_packages(
    "import fcntl, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "from kismet_tui.door_child import run; sys.exit(run(sys.argv[1:]))"
)


def set_size(fd: int, cols: int, rows: int) -> None:
    cols, rows = clamp_size(cols, rows)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class PtyApp:
    """`kismet-join ARGS` on a new pty of `cols` x `rows`; `on_output(bytes)` gets what it
    draws, `on_exit(returncode)` is called once when it has ended. With a `forker` (the
    warm parent, server/doors/warm_doors.py) the process is forked from it, else started anew."""

    def __init__(
        self,
        args: list[str],
        *,
        term: str,
        cols: int,
        rows: int,
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
        client_env: Mapping[str, object] | None = None,
        door_env: dict[str, str] | None = None,
        on_input_room: Callable[[], None] | None = None,
        address_space: int = SESSION_ADDRESS_SPACE,
        forker: DoorForker | None = None,
        confinement: Rules | None = None,
        turn: StartTurn | None = None,
    ) -> None:
        self.args = args
        self.term = term
        self.client_env = client_env
        self.door_env = door_env or {}  # what the door itself hands the child
        self.cols, self.rows = clamp_size(cols, rows)
        self.on_output = on_output
        self.on_exit = on_exit
        self.on_input_room = on_input_room  # called when the backlog has room again
        self.address_space = address_space
        self.forker = forker
        self.confinement = confinement  # the files it may open (server/doors/session_sandbox.py)
        self.turn = turn  # its start-up's turn (server/doors/door_starts.py), told what it draws
        self.proc: SessionProcess | None = None
        self.master: int | None = None  # the pty's side we hold; None once released
        self._pending = bytearray()
        self.budget = input_budget()  # the bytes of keys the app may be fed (from start())
        self._later: asyncio.TimerHandle | None = None
        self._waiter: asyncio.Task[None] | None = None  # set by start() with proc
        self.memory = MemoryLook()  # whether it came near its memory limit while it drew
        # Ends it near its limit once it answers neither keys nor a new size.
        self.wedge = WedgeWatch(self.memory, self._over_memory)
        self.memory_watch: MemoryWatch | None = None  # where no RLIMIT_AS (macOS)
        self.over_memory = False  # a watch ended it at (or past) its limit

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.budget = input_budget()
        master, slave = pty.openpty()
        try:
            set_size(slave, self.cols, self.rows)
            env = child_environment(self.term, self.client_env) | self.door_env
            proc = self.proc = await self._forked(
                env, slave
            ) or await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                JOIN_CODE,
                *self.args,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                start_new_session=True,
                close_fds=True,
                preexec_fn=functools.partial(
                    limit_session_child, self.address_space, self.confinement
                ),
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        loop.add_reader(master, self._readable)
        if not address_space_limited():
            self.memory_watch = MemoryWatch(proc.pid, self.address_space, self._over_memory)
        self._waiter = asyncio.create_task(self._wait(proc))

    def _over_memory(self) -> None:
        """The memory watch found the app past its limit, or the wedge watch found it near
        it and silent: end it, as out of memory (as Linux's limit would have)."""
        if self.proc is not None and self.proc.returncode is None:
            self.over_memory = True
            try:
                signal_group(self.proc, signal.SIGKILL)
            except ProcessLookupError:
                pass

    async def _forked(self, env: dict[str, str], slave: int) -> SessionProcess | None:
        """The session forked by the warm parent on the pty's `slave` side; None when there
        is none (--door-sessions spawn) or it cannot: then start() starts a process itself."""
        if self.forker is None:
            return None
        try:
            return await self.forker.spawn(
                self.args,
                env,
                (slave, slave, slave),
                terminal=True,
                address_space=self.address_space,
                confinement=self.confinement,
            )
        except ForkerUnavailable as exc:
            log.warning("an ssh session starts a process of its own: %s", exc)
            return None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def _readable(self) -> None:
        master = self.master
        if master is None:
            return  # released (_release also stops this callback)
        try:
            data = os.read(master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the app has closed its side
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(master)
            return
        self.wedge.drew(self.pid)
        if self.turn is not None:
            self.turn.drew()
        self.on_output(data)

    def pause_reading(self) -> None:
        if self.master is not None:
            self.wedge.holding(True)  # (what it draws meanwhile waits for the door)
            asyncio.get_running_loop().remove_reader(self.master)

    def resume_reading(self) -> None:
        if self.master is not None:
            self.wedge.holding(False)
            asyncio.get_running_loop().add_reader(self.master, self._readable)

    def write(self, data: bytes) -> None:
        """The player's keys, in order, within the session's input budget; what the app may
        not have yet waits in the backlog (the door keeps it bounded: it stops reading while
        session_policy.stop_reading says so of `input_backlog`)."""
        if self.master is None:
            return
        self._pending += data
        if data:
            self.wedge.asked(self.pid)
        self._flush()

    @property
    def input_backlog(self) -> int:
        """Bytes of keys waiting for the app."""
        return len(self._pending)

    def _flush(self) -> None:
        master = self.master
        if master is None:
            return  # released (_release also stops this callback)
        loop = asyncio.get_running_loop()
        self.budget.refill(time.monotonic())
        try:
            while self._pending and self.budget.tokens >= 1:
                sent = os.write(master, self._pending[: int(self.budget.tokens)])
                del self._pending[:sent]
                self.budget.spend(sent)
        except BlockingIOError:
            loop.add_writer(master, self._flush)  # the pty is full: the app is not reading
            return
        except OSError:
            self._pending.clear()
        loop.remove_writer(master)
        if self._pending and self._later is None:
            # Over the rate: the rest goes when the bucket holds a little again.
            self._later = loop.call_later(
                min(len(self._pending), 256) / INPUT_BYTES_PER_SECOND, self._flush_later
            )
        if read_again(len(self._pending)) and self.on_input_room is not None:
            self.on_input_room()

    def _flush_later(self) -> None:
        self._later = None
        self._flush()

    def resize(self, cols: int, rows: int) -> None:
        size = self.cols, self.rows
        self.cols, self.rows = clamp_size(cols, rows, size)
        if self.master is not None:
            set_size(self.master, self.cols, self.rows)
            if (self.cols, self.rows) != size:  # (the same size sends the app no SIGWINCH)
                self.wedge.asked(self.pid)

    async def _wait(self, proc: SessionProcess) -> None:
        code = await proc.wait()
        self.wedge.stop()
        if self.turn is not None:
            self.turn.end()
        if self.memory_watch is not None:
            self.memory_watch.stop()
        self._release()
        self.on_exit(OUT_OF_MEMORY if self.over_memory else code)

    def _release(self) -> None:
        if self._later is not None:
            self._later.cancel()
            self._later = None
        self._pending.clear()
        if self.master is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(self.master)
            loop.remove_writer(self.master)
            os.close(self.master)
            self.master = None

    async def close(self, grace: float = 3.0) -> None:
        """Hang up on the app (SIGHUP, as a closed terminal would), then kill it if it lingers."""
        if self.proc is None or self.proc.returncode is not None:
            return
        assert self._waiter is not None  # start() makes it with the process
        for sig in (signal.SIGHUP, signal.SIGKILL):
            try:
                signal_group(self.proc, sig)
            except ProcessLookupError:
                break
            try:
                await asyncio.wait_for(asyncio.shield(self._waiter), grace)
                break
            except TimeoutError:
                continue
