"""The commands end when their terminal does: SIGHUP, SIGTERM, the terminal gone, ctrl+c.

`kismet`, `kismet-join` and `kismet-replay` run `ends_with_its_terminal(main)`. From the very
start (imports and start-up included) SIGHUP and SIGTERM end the process: while the app runs
they ask it to exit properly (the embedded host closes its logs) and, should that not be done
within GRACE_S, the process ends anyway (every game log is written with plain unbuffered
writes, so nothing written is lost); before or after the app, at once. A second signal ends it
at once. Ctrl+c before the app has the keyboard (its first moments) is a quiet exit, never a
traceback.

The terminal can also vanish without a signal (a pty whose other end closed): the app's
writer thread then fails on every write. Textual's own writer thread dies on the first such
error, and the next full queue of frames blocks the app forever in its shutdown (seen: a
process stuck for half an hour, deaf to SIGTERM). `GuardedDriver` gives the driver a writer
that drops the frames of a terminal that is gone, and asks the app to exit the same way.

Windows has no SIGHUP: there SIGTERM and SIGBREAK (ctrl+break) are the ending signals, and a
console closed under the app ends the process by itself (Windows' close event gives a
console program a few seconds and then ends it; the game logs lose nothing, as above).
"""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

GRACE_S = 1.5  # time for a proper exit (logs closed, connection said goodbye) before the end
# The signals that end a command where the platform has them (SIGHUP: POSIX; SIGBREAK: Windows).
ENDING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGHUP", "SIGTERM", "SIGBREAK") if hasattr(signal, name)
)
HUNG_UP = 128 + 1  # the exit code of a hang-up (SIGHUP is 1 wherever it exists)

_app: Any = None  # the running KismetApp (set by the app itself, see running())
_loop: asyncio.AbstractEventLoop | None = None  # the loop it runs on
_ending = False  # asked to end already: the next signal ends at once

F = TypeVar("F", bound=Callable[..., int])


def ends_with_its_terminal(main: F) -> F:
    """Wrap a command's main: the signals above end it whatever it is doing."""

    @functools.wraps(main)
    def run(*args: Any, **kwargs: Any) -> int:
        if threading.current_thread() is not threading.main_thread():
            return main(*args, **kwargs)  # (signals are the main thread's: a test's call)
        handlers = {signum: _on_ending_signal for signum in ENDING_SIGNALS}
        handlers[signal.SIGINT] = _on_interrupt
        before = {signum: signal.signal(signum, handler) for signum, handler in handlers.items()}
        try:
            return main(*args, **kwargs)
        except KeyboardInterrupt:
            print("Stopped.", file=sys.stderr)
            return 130
        finally:  # a main called in-process (a test) leaves the signals as they were
            for signum, handler in before.items():
                signal.signal(signum, handler)

    return run  # type: ignore[return-value]


def ending() -> bool:
    """Whether a signal (ctrl+c, a closed terminal) has asked this program to end."""
    return _ending


def running(app: Any) -> None:
    """The app tells us, from its event loop, that it runs (None: it stopped): the signals
    now ask it to exit. Asked to end while it was starting, it exits at once."""
    global _app, _loop
    _app, _loop = app, asyncio.get_running_loop() if app is not None else None
    if app is not None and _ending:
        app.exit()


def end_soon(exit_code: int, again_ends_now: bool = True) -> None:
    """Ask the running app to exit, and end the process after GRACE_S whatever happens.
    Asked again (a second signal), end now, unless not `again_ends_now` (the terminal found
    gone while the exit already runs). Safe from a signal handler and from any thread."""
    global _ending
    app = _app
    if _ending and not again_ends_now:
        return
    if _ending or not (app is not None and app.is_running or _loop_runs_here()):
        os._exit(exit_code)  # nothing to close properly (yet, or any more), or asked again
    _ending = True
    deadline = threading.Timer(GRACE_S, os._exit, args=(exit_code,))
    deadline.daemon = True
    deadline.start()
    try:
        if app is not None and _loop is not None:
            _loop.call_soon_threadsafe(app.exit)
        # else the app is starting: running() exits it as soon as it is up
    except RuntimeError:  # the loop has closed meanwhile: the deadline ends the process
        pass


def _loop_runs_here() -> bool:
    """An event loop runs in this thread: the app may be starting (its terminal already in
    application mode), so it should rather exit properly than be cut off."""
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False


def _on_ending_signal(signum: int, frame: object) -> None:
    end_soon(128 + signum)


def _on_interrupt(signum: int, frame: object) -> None:
    """Ctrl+c: once the app has the keyboard it arrives as a key, not as this signal. Before
    that it stops the command quietly: plain Python code by KeyboardInterrupt (the wrapper
    says "Stopped."), an app starting or running by asking it to exit."""
    if _app is not None and _app.is_running or _loop_runs_here():
        end_soon(130)
        return
    raise KeyboardInterrupt


def guarded(driver_class: type) -> type:
    """`driver_class` whose writer thread is a DrainingWriter: Textual's, but a write that
    fails (the terminal is gone) does not end it. It keeps taking frames, so nobody blocks
    on a full queue, drops them, and asks the app to exit."""
    from textual.drivers._writer_thread import WriterThread  # (Textual only for the app)

    class DrainingWriter(WriterThread):
        def run(self) -> None:
            try:
                super().run()
                return
            except (OSError, ValueError):  # EIO, EPIPE; ValueError: the file was closed
                pass
            end_soon(HUNG_UP, again_ends_now=False)
            while self._queue.get() is not None:
                pass

    class GuardedDriver(driver_class):  # type: ignore[misc, valid-type]
        @property
        def _writer_thread(self) -> WriterThread | None:
            return self.__dict__.get("_guarded_writer")

        @_writer_thread.setter
        def _writer_thread(self, writer: WriterThread | None) -> None:
            if writer is not None and not isinstance(writer, DrainingWriter):
                writer = DrainingWriter(writer._file)
            self.__dict__["_guarded_writer"] = writer

    return GuardedDriver
