"""The warm parent of door sessions: one process that has loaded the client once and forks
one child per ssh or browser session (`kismet-host --door-sessions warm`, the default).

Started by the host (server/doors/warm_doors.py) as soon as a door opens, it imports Textual, the
app, its screens, the network client and both terminal drivers (Linux's for ssh, Textual's
web driver for the browser), runs the app once headless to its lobby (rehearse_a_session),
then freezes the collector's view of all of it (gc.freeze, again before each fork: the
children do not write to those pages when they collect, so the pages stay shared; a child
never unfreezes them, or its first full collection would touch every one), and waits. It runs no thread and no event loop: a plain blocking loop over one unix socket to
the host and the pidfds of its children, so a fork copies nothing half-done.

A request over the socket carries a session's argv, environment, memory limit and its fds
(SCM_RIGHTS): the pty's slave side three times for ssh, three pipes for the browser. The
child becomes what today's per-session process is: a session (and, for ssh, the pty's
controlling terminal) of its own, the same hard address-space limit, death with its parent
(the parent-death signal, set and then checked against the race with the parent's own
death), the session's fds as 0, 1 and 2 and no other fd at all (not the socket to the host,
not another session's pty or pipes), signals as a fresh interpreter has them, the session's
environment, and its confinement (server/doors/session_sandbox.py: the files it may open); then it runs the client of `kismet-join` (kismet_tui.door_child.run) and exits
with its status.

The host is told each child's pid with a pidfd of it (to watch and to signal without a
pid-reuse race), and later its exit status (this process reaps it): an exit at the memory
limit (door_child.OUT_OF_MEMORY) still reaches the door, which says so in words. When the
host goes (the socket closes, or the parent-death signal), every child goes too.

Messages are JSON, one a packet (SOCK_SEQPACKET):
- to the host: {"op": "ready"}, {"op": "forked", "id", "pid"} with the pidfd,
  {"op": "failed", "id", "error"}, {"op": "ended", "pid", "status"} (a returncode as
  asyncio gives it: negative for a signal);
- from the host: {"op": "fork", "id", "argv", "env", "terminal", "address_space",
  "deadline", "confine"} with three fds (a request read after its deadline is answered "failed", not
  forked: the host has stopped waiting and started that session itself), {"op": "signal", "pid", "signal"} (to the child's whole process group, only while it
  is not yet reaped: never a stranger's reused pid).
"""

from __future__ import annotations

import fcntl
import gc
import importlib
import json
import os
import resource
import select
import signal
import socket
import sys
import termios
import threading
import time
import traceback
from typing import Any

from .door_limits import FORKER_MESSAGE_BYTES, die_with_parent
from .session_sandbox import confine

# Room for one request: argv and environment (a host's environment is a few KiB).
SESSION_FDS = 3  # what a child gets as its 0, 1 and 2
REHEARSAL_SECONDS = 60.0  # the warm-up's rehearsal of a session (0.1-0.2 s on a quiet machine)


# What a session imports on its way to the lobby and its first game (measured: the modules
# a forked child had loaded after fork, beyond these, were 237). Imported here once, their
# code and tables are shared by every child instead of loaded again by each. The solver's
# numpy starts no thread of its own here (one BLAS thread: door env's OPENBLAS_NUM_THREADS).
SESSION_MODULES = (
    "asyncio",
    "textual.app",
    "textual.drivers.linux_driver",
    "textual.drivers.web_driver",
    "textual.pilot",
    "textual.scrollbar",
    "textual.coordinate",
    "textual.layouts.horizontal",
    "textual.layouts.stream",
    "textual.renderables.styled",
    "rich.markdown",
    "rich.pretty",
    "rich.rule",
    "rich.syntax",
    "markdown_it",
    "numpy",
    "kismet_tui.app",
    "kismet_tui.cli",
    "kismet_tui.door_child",
    "kismet_tui.net.client",
    "kismet_tui.player_key",
    "kismet_tui.saved_seats",
    "kismet_tui.bots.advisor",
    "kismet_tui.bots.levels",
    "kismet_tui.bots.simple",
    "kismet_tui.rules.dice",
    "kismet_tui.solver.advice",
    "kismet_tui.solver.table",
)
SESSION_PACKAGES = ("kismet_tui.screens", "kismet_tui.widgets")  # every module of each


def warm_up() -> None:
    """Import what every session needs, and do once what can be shared, before any fork."""
    import pkgutil

    for name in SESSION_MODULES:
        importlib.import_module(name)
    for package in SESSION_PACKAGES:
        for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
            importlib.import_module(f"{package}.{module.name}")
    widgets = importlib.import_module("textual.widgets")
    for widget in widgets.__all__:  # (Textual loads its widgets when first named)
        getattr(widgets, widget)
    share_parsed_css()
    rehearse_a_session()


def share_parsed_css() -> None:
    """Every app's stylesheet takes the CSS it parses from one cache of this process, which
    the rehearsal fills before any fork.

    Textual keeps what a stylesheet parsed in that stylesheet, and each app makes its own:
    without this, every session parsed all of its CSS again (some 20 ms of its start, a
    fifth of its CPU to the lobby). Parsed rules depend on the CSS, where it was read from,
    its kind and scope (Textual's own key) and the stylesheet's variables (the theme), so
    all of those make the key; the rules are only read once parsed (Textual hands the same
    ones out of its own cache again)."""
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    parsed: dict[tuple[object, ...], list[Any]] = {}
    themes: dict[tuple[tuple[str, str], ...], int] = {}  # each set of variables, numbered
    seen: list[tuple[dict[str, str], int]] = [({}, -1)]  # the variables looked at last

    def theme_of(variables: dict[str, str]) -> int:
        if seen[0][0] is not variables:  # (a new set: an app's start, or a new theme)
            seen[0] = (variables, themes.setdefault(tuple(sorted(variables.items())), len(themes)))
        return seen[0][1]

    def shared(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[Any]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, theme_of(self._variables))
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse_rules(
                self, css, read_from, is_default_rules, tie_breaker, scope
            )
        return rules

    Stylesheet._parse_rules = shared  # type: ignore[method-assign]


def rehearse_a_session() -> None:
    """Run the client's app once, headless, to its lobby, and throw it away.

    Python 3.11 writes to a function's code object as it warms up and specialises it, and
    Textual and Rich fill module-level caches (parsed CSS selectors and styles, colours,
    cell widths, compiled regexes) as a screen is first drawn: done here, before any fork,
    those pages are written once and shared, not copied into every session as it draws its
    first screens. The rehearsal has no host (its connection fails at once: the lobby says
    so) and no player's data; its loop is closed and no thread is left when it returns."""
    import asyncio

    from kismet_tui.app import KismetApp
    from kismet_tui.net.client import Client

    async def no_host() -> None:
        raise OSError("the warm parent's rehearsal has no host")

    async def to_the_lobby() -> None:
        from kismet_tui.screens.lobby import LobbyScreen

        app = KismetApp(Client(reconnect=False), connect=no_host, address="rehearsal")
        async with app.run_test(headless=True, size=(80, 24)) as pilot:
            while not (isinstance(app.screen, LobbyScreen) and app.connection.state == "closed"):
                await pilot.pause()
            await pilot.pause()  # that state drawn
            app.exit()

    try:
        asyncio.run(asyncio.wait_for(to_the_lobby(), REHEARSAL_SECONDS))
    except Exception as exc:  # (a machine too busy, say) sessions then only start less warm
        print(
            f"door forker: the rehearsal did not finish ({exc!r}); sessions start less warm",
            file=sys.stderr,
        )


def send(sock: socket.socket, message: dict[str, object], fds: list[int] | None = None) -> None:
    socket.send_fds(sock, [json.dumps(message).encode()], fds or [])


class Forker:
    """The loop: requests from the host, the ends of children, until the host goes."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.children: dict[int, int] = {}  # pidfd -> pid, children not yet reaped
        self.poller = select.poll()
        self.poller.register(sock.fileno(), select.POLLIN)

    def serve(self) -> None:
        send(self.sock, {"op": "ready"})
        while True:
            for fd, _events in self.poller.poll():
                if fd == self.sock.fileno():
                    if not self.take_request():
                        self.end_all()
                        return
                else:
                    self.reap(fd)

    def take_request(self) -> bool:
        """One message from the host; False when the host has gone."""
        try:
            data, fds, _flags, _address = socket.recv_fds(
                self.sock, FORKER_MESSAGE_BYTES, SESSION_FDS
            )
        except ConnectionError:
            return False
        if not data:
            return False
        try:
            message = json.loads(data)
            if message.get("op") == "fork" and len(fds) == SESSION_FDS:
                if too_late(message):  # its login has started a process of its own
                    send(self.sock, {"op": "failed", "id": message.get("id"), "error": "too late"})
                else:
                    self.fork(message, fds)
            elif message.get("op") == "signal":
                self.signal_group(int(message["pid"]), int(message["signal"]))
        finally:
            for fd in fds:
                os.close(fd)  # the child has its own copies; these would keep a pty open
        return True

    def fork(self, request: dict[str, object], fds: list[int]) -> None:
        # A dice table built since the last fork is loaded here once, for every later session.
        from kismet_tui.bots import dice_levels  # (warm_up imported it: no cost here)

        dice_levels.preload()
        gc.freeze()  # what this loop has made since (that table too) stays shared as well
        parent = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as exc:
            send(self.sock, {"op": "failed", "id": request.get("id"), "error": str(exc)})
            return
        if pid == 0:
            become_session(request, fds, parent)  # never returns
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = pid
        self.poller.register(pidfd, select.POLLIN)
        send(self.sock, {"op": "forked", "id": request.get("id"), "pid": pid}, [pidfd])

    def signal_group(self, pid: int, signum: int) -> None:
        if pid in self.children.values():  # not reaped yet: the group is still this child's
            try:
                os.killpg(pid, signum)
            except (ProcessLookupError, PermissionError):
                pass

    def reap(self, pidfd: int) -> None:
        pid = self.children.pop(pidfd)
        self.poller.unregister(pidfd)
        os.close(pidfd)
        _pid, status = os.waitpid(pid, 0)
        send(self.sock, {"op": "ended", "pid": pid, "status": os.waitstatus_to_exitcode(status)})

    def end_all(self) -> None:
        """The host has gone: so does every session (their parent-death signal would end
        them as this process exits; this ends their process groups too)."""
        for pid in self.children.values():
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def too_late(request: dict[str, object]) -> bool:
    """The request's deadline (the host's time.monotonic(): CLOCK_MONOTONIC, the same in
    every process) has passed: the host no longer waits for this fork."""
    deadline = request.get("deadline")
    return isinstance(deadline, (int, float)) and time.monotonic() > deadline


def become_session(request: dict[str, object], fds: list[int], parent: int) -> None:
    """In the child just forked: take the session's fds, limits and environment, run the
    client, and exit with its status. Never returns."""
    code = 1
    try:
        die_with_parent(parent)
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(SESSION_FDS, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        if request.get("terminal"):
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # window changes reach us as SIGWINCH
        argv, env, address_space = session_of(request)
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        fresh_signals()
        rules = request.get("confine")  # (server/doors/session_sandbox.py; None: not confined)
        confine(rules if isinstance(rules, list) else None)
        os.environ.clear()
        os.environ.update(env)
        # Textual reads its settings from the environment when first imported.
        import textual.constants

        importlib.reload(textual.constants)
        sys.argv = ["kismet-join", *argv]
        from kismet_tui.door_child import run

        code = run(argv)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except MemoryError:
        from kismet_tui.door_env import OUT_OF_MEMORY

        code = OUT_OF_MEMORY
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def session_of(request: dict[str, object]) -> tuple[list[str], dict[str, str], int]:
    """A fork request's argv, environment and address-space limit, as the host sent them."""
    argv, env, address_space = request.get("argv"), request.get("env"), request.get("address_space")
    if not (isinstance(argv, list) and isinstance(env, dict) and isinstance(address_space, int)):
        raise ValueError("a fork request without argv, env or address_space")
    return [str(arg) for arg in argv], {str(k): str(v) for k, v in env.items()}, address_space


def fresh_signals() -> None:
    """Signals as a new interpreter has them: none blocked, the default action for each, but
    SIGINT's KeyboardInterrupt and SIGPIPE ignored (what Python sets at start)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for signum in (
        signal.SIGHUP,
        signal.SIGTERM,
        signal.SIGCHLD,
        signal.SIGWINCH,
        signal.SIGQUIT,
        signal.SIGUSR1,
        signal.SIGUSR2,
        signal.SIGALRM,
    ):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    """`python -m server.doors.door_forker FD [LABEL]`: serve the host on the unix socket FD."""
    args = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(args[0]))
    sock.setblocking(True)
    warm_up()
    # Nothing may run beside the loop when it forks: a thread's lock held at fork time
    # would stay held in the child for ever.
    assert threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 1, (
        "the door forker must fork from one thread"
    )
    gc.collect()
    gc.freeze()
    Forker(sock).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
