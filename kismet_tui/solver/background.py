"""The optimal table, built in the background the first time something needs it.

A build runs as a child process (`python -m kismet_tui.solver --lines`, at a lower CPU
priority, so the screen and the host stay quick) and reports its progress on a pipe; a
thread here reads it, and when the child is done it loads the table, so the caller's thread
never waits for the disk. One build per cache path and process (start() again returns it);
two programs of the same user share the cache file, and the child takes the cache's lock,
so a second program's build waits for the first and then just loads its table.

Light on purpose: importing this module does not import numpy or the solver's tables (the
app reads status_words() each time a build tells it something changed, through listen()).

`KISMET_SOLVER_AUTOBUILD=0` turns the background build off (the test suite does, so no test
builds a table it did not ask for); `python -m kismet_tui.solver` still builds by hand.
"""

from __future__ import annotations

import atexit
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the annotation only: importing this module loads no numpy
    import numpy as np

log = logging.getLogger("kismet.solver")

AUTOBUILD_ENV = "KISMET_SOLVER_AUTOBUILD"
READY_SHOWN_S = 8.0  # how long the status bar says the bot is ready
FAILED_SHOWN_S = 30.0
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def build_command() -> list[str]:
    """The child process that builds (or, when another program built it meanwhile, loads)
    the table and reports on stdout (kismet_tui/solver/__main__.py)."""
    return [sys.executable, "-m", "kismet_tui.solver", "--lines"]


def enabled() -> bool:
    return os.environ.get(AUTOBUILD_ENV, "1").strip().lower() not in ("0", "no", "off", "false")


class Build:
    """One background build. Read its fields from any thread: state is "starting",
    "waiting" (another program holds the lock), "building", "ready" or "failed"."""

    def __init__(self, path: Path, command: list[str] | None = None):
        self.path = Path(path)
        self.command = command or build_command()
        self.state = "starting"
        self.fraction = 0.0
        self.damaged: str | None = None  # why the cached file was not used, if damaged
        self.error: str | None = None
        self.V: np.ndarray | None = None  # the table, once built and loaded
        self.started_at = time.monotonic()
        self.finished_at: float | None = None
        self.done = threading.Event()
        self._proc: subprocess.Popen | None = None
        self._thread = threading.Thread(target=self._run, name="kismet-table-build", daemon=True)

    def start(self) -> Build:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._watch()
        except Exception as exc:  # never let a failed build take the program down
            self._fail(f"{type(exc).__name__}: {exc}")
        finally:
            self.done.set()

    def _watch(self) -> None:
        from . import table  # numpy and the solver: only once a build is really wanted

        env = dict(os.environ, KISMET_SOLVER_CACHE=str(self.path.parent))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        with tempfile.TemporaryFile("w+") as errors:
            proc = self._proc = subprocess.Popen(
                self.command,
                stdout=subprocess.PIPE,
                stderr=errors,
                stdin=subprocess.DEVNULL,
                env=env,
                text=True,
            )
            assert proc.stdout is not None  # stdout=PIPE gives the pipe
            _running.add(proc)
            try:
                for line in proc.stdout:
                    self._heard(line.split(maxsplit=1))
                code = proc.wait()
            finally:
                _running.discard(proc)
            errors.seek(0)
            said = [line for line in errors.read().splitlines() if line.strip()]
        if code != 0:
            self._fail(said[-1] if said else f"the build stopped (exit status {code})")
            return
        V, problem = table.load_checked(self.path)
        if V is None:
            self._fail(f"the table was built but cannot be read: {problem}")
            return
        self.V = V
        self.fraction = 1.0
        self.finished_at = time.monotonic()
        self.state = "ready"
        _changed()
        log.info(
            "The perfect dice bot is ready: the optimal table was built in %.0f s (%s).",
            self.finished_at - self.started_at,
            self.path,
        )

    def _heard(self, words: list[str]) -> None:
        if not words:
            return
        kind, rest = words[0], words[1].strip() if len(words) > 1 else ""
        if kind == "progress":
            done, total = (int(n) for n in rest.split())
            before = int(5 * self.fraction)
            self.fraction = done / total if total else 0.0
            self.state = "building"
            if int(5 * self.fraction) > before and self.fraction < 1:  # a host's log: every 20 %
                log.info("Building the optimal table: %d %%", 100 * self.fraction)
        elif kind == "waiting":
            self.state = "waiting"
        elif kind == "damaged":
            self.damaged = rest
            log.warning("The cached optimal table is damaged (%s): building it again.", rest)
        else:
            return
        _changed()

    def _fail(self, why: str) -> None:
        self.error = why
        self.finished_at = time.monotonic()
        self.state = "failed"
        _changed()
        log.warning("The optimal table could not be built in the background: %s", why)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()

    def words(self, short: bool = False) -> str:
        """The build in a few words, for the status bar."""
        percent = int(100 * self.fraction)
        if self.state == "ready":
            return "Dice bot ready" if short else "The perfect dice bot is ready"
        if self.state == "failed":
            return "Dice bot: estimate" if short else "The perfect dice bot could not be prepared"
        if short:
            return f"Dice bot: {percent} %"
        if self.state == "waiting":
            return "Preparing the perfect dice bot: waiting for another program"
        if self.damaged:
            return f"Rebuilding the damaged dice table: {percent} %"
        return f"Preparing the perfect dice bot: {percent} %"


_builds: dict[str, Build] = {}
_builds_lock = threading.Lock()
_running: set = set()
_listeners: list[Callable[[], None]] = []


def listen(callback: Callable[[], None]) -> Callable[[], None]:
    """Call `callback()` whenever status_words() may say something new: a build started,
    moved on, finished or failed. It is called from the build's own thread, so it should
    only hand the news on (the app posts itself a message). Returns the call that stops it."""
    _listeners.append(callback)

    def stop() -> None:
        if callback in _listeners:
            _listeners.remove(callback)

    return stop


def _changed() -> None:
    for callback in list(_listeners):
        try:
            callback()
        except Exception:  # a listener's fault must not stop the build
            log.exception("a build listener failed")


def start(path: Path) -> Build:
    """The build of the table at `path`: the one already started in this process, else a new
    one. Whether a cached file there is damaged is the child's to say: it looks again under
    the lock (a file being replaced by another program is not damaged)."""
    with _builds_lock:
        found = _builds.get(str(path))
        if found is None:
            log.info("The optimal table is not in the cache yet: building it in the background.")
            found = _builds[str(path)] = Build(path).start()
            started = True
        else:
            started = False
    if started:
        _changed()
    return found


def current(path: Path) -> Build | None:
    return _builds.get(str(path))


def any_started() -> bool:
    """Whether this program has started a build of any table (one may be ready in memory
    before, or instead of, its file)."""
    return bool(_builds)


def _newest() -> Build | None:
    return max(_builds.values(), key=lambda b: b.started_at) if _builds else None


def status_shown_for(now: float | None = None) -> float | None:
    """How many more seconds status_words() says what it says now, when that ends by itself
    (a finished build's words go after a while); None while a build runs or there is none."""
    build = _newest()
    if build is None or build.finished_at is None:
        return None
    now = time.monotonic() if now is None else now
    shown = READY_SHOWN_S if build.state == "ready" else FAILED_SHOWN_S
    left = build.finished_at + shown - now
    return left if left > 0 else None


def status_words(short: bool = False, now: float | None = None) -> str | None:
    """What the status bar says about the newest build: its progress while it runs, then for
    a few seconds that it is ready (or could not be made); None when there is nothing to say."""
    build = _newest()
    if build is None or (build.finished_at is not None and status_shown_for(now) is None):
        return None
    return build.words(short)


@atexit.register
def _stop_children() -> None:
    """A build still running when the program ends stops with it (its temporary file goes;
    the next start builds again)."""
    for proc in list(_running):
        if proc.poll() is None:
            proc.terminate()
