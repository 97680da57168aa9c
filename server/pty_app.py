"""One remote player's `kismet-join`, run on a pseudo-terminal of its own.

The ssh server starts one of these per session and pipes bytes between the ssh channel and
the pty's master side: the player's keys go in, the app's screen comes out, a window change
becomes a TIOCSWINSZ (the kernel then sends the app SIGWINCH). The app is an ordinary client
of the host over loopback, so it crashes, leaks or blocks alone, never the host or another
player, and it needs no code of its own for being remote.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import signal
import struct
import sys
import termios

# The child takes the pty as its controlling terminal (it is a session leader through
# start_new_session), so window changes reach it as SIGWINCH and a hang-up as SIGHUP.
JOIN_CODE = ("import fcntl, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
             "from kismet_tui.cli import join_main; sys.exit(join_main(sys.argv[1:]))")


def set_size(fd: int, cols: int, rows: int) -> None:
    cols = max(1, min(int(cols), 1000))
    rows = max(1, min(int(rows), 1000))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


# What describes the host owner's own terminal, not the remote player's: left out, or the
# app would draw for the wrong terminal (truecolor where the player's has 256 colours, say).
THEIR_TERMINAL = ("COLUMNS", "LINES", "ROWS", "COLORTERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION",
                  "VTE_VERSION", "WT_SESSION", "KITTY_WINDOW_ID", "TMUX", "STY", "NO_COLOR")
FROM_CLIENT = ("COLORTERM", "NO_COLOR")   # what the player's ssh may say about their terminal


def child_environment(term: str, client_env: dict | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("TEXTUAL", "ITERM", "LC_TERMINAL")) and key not in THEIR_TERMINAL}
    for key in FROM_CLIENT:
        value = (client_env or {}).get(key)
        if isinstance(value, str) and len(value) < 64:
            env[key] = value
    env["TERM"] = term or "xterm-256color"
    env["PYTHONUTF8"] = "1"          # the screen is drawn in UTF-8 whatever the host's locale
    env["PYTHONUNBUFFERED"] = "1"
    return env


class PtyApp:
    """`kismet-join ARGS` on a new pty of `cols` x `rows`; `on_output(bytes)` gets what it
    draws, `on_exit(returncode)` is called once when it has ended."""

    def __init__(self, args: list[str], *, term: str, cols: int, rows: int, on_output, on_exit,
                 client_env: dict | None = None):
        self.args = args
        self.term = term
        self.client_env = client_env
        self.cols, self.rows = cols, rows
        self.on_output = on_output
        self.on_exit = on_exit
        self.proc: asyncio.subprocess.Process | None = None
        self.master: int | None = None        # the pty's side we hold; None once released
        self._pending = bytearray()
        self._waiter: asyncio.Task | None = None  # set by start() with proc

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        master, slave = pty.openpty()
        try:
            set_size(slave, self.cols, self.rows)
            proc = self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", JOIN_CODE, *self.args,
                stdin=slave, stdout=slave, stderr=slave, env=child_environment(self.term, self.client_env),
                start_new_session=True, close_fds=True)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        loop.add_reader(master, self._readable)
        self._waiter = asyncio.create_task(self._wait(proc))

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
        self.on_output(data)

    def pause_reading(self) -> None:
        if self.master is not None:
            asyncio.get_running_loop().remove_reader(self.master)

    def resume_reading(self) -> None:
        if self.master is not None:
            asyncio.get_running_loop().add_reader(self.master, self._readable)

    def write(self, data: bytes) -> None:
        """The player's keys, in order; what the pty cannot take now waits for it."""
        if self.master is None:
            return
        self._pending += data
        self._flush()

    def _flush(self) -> None:
        master = self.master
        if master is None:
            return  # released (_release also stops this callback)
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                sent = os.write(master, self._pending)
                del self._pending[:sent]
        except BlockingIOError:
            loop.add_writer(master, self._flush)
            return
        except OSError:
            self._pending.clear()
        loop.remove_writer(master)

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        if self.master is not None:
            set_size(self.master, cols, rows)

    async def _wait(self, proc: asyncio.subprocess.Process) -> None:
        code = await proc.wait()
        self._release()
        self.on_exit(code)

    def _release(self) -> None:
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
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                await asyncio.wait_for(asyncio.shield(self._waiter), grace)
                break
            except asyncio.TimeoutError:
                continue
