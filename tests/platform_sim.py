"""What Windows, macOS or Linux before 5.3 lack, hidden from the project's own imports.

A command run with `simulated(platform)` as its environment starts with
tests/platform_site/sitecustomize.py, which calls `install(platform)` before anything else:
from then on every `import` made by a module of kismet_tui, server or protocol goes through
a filter. The modules the platform has not (Windows: fcntl, resource, pty, termios, ...)
raise ModuleNotFoundError there, as they would; os, signal, sys, socket, select, resource and
ctypes come as views of the real module without the names the platform has not (os.fork,
signal.SIGHUP, os.pidfd_open, ...), and with `sys.platform` (and os.name) the platform's.
What the platform refuses rather than lacks is refused: on macOS setting RLIMIT_AS fails as
it does there, and the project's reads of /proc find nothing; before Linux 5.3
os.pidfd_open fails with ENOSYS.

Everything else in the process (Python itself, asyncio, Textual, asyncssh) keeps seeing
Linux: the simulation is of what the project's code may rely on, not of another kernel. On
Windows that lacks `msvcrt` here, the module the project locks files with there: a small
one of the same calls is given, made of byte-range locks (fcntl.lockf), which Windows'
LK_NBLCK and LK_UNLCK are.
"""

from __future__ import annotations

import builtins
import errno
import os
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(__file__).resolve().parent / "platform_site"
VARIABLE = "KISMET_SIMULATE_PLATFORM"
PROJECT = ("kismet_tui", "server", "protocol")

# The names each platform has not, module by module.
_POSIX_ONLY_SIGNALS = (
    "SIGHUP",
    "SIGKILL",
    "SIGQUIT",
    "SIGCHLD",
    "SIGWINCH",
    "SIGUSR1",
    "SIGUSR2",
    "SIGALRM",
    "SIGPIPE",
    "SIGBUS",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGPROF",
    "SIGVTALRM",
    "SIGXCPU",
    "SIGIO",
    "SIGPOLL",
    "SIGRTMIN",
    "SIGRTMAX",
    "pthread_sigmask",
    "pthread_kill",
    "pidfd_send_signal",
    "setitimer",
    "getitimer",
    "alarm",
    "pause",
    "siginterrupt",
    "sigwait",
    "SIG_BLOCK",
    "SIG_UNBLOCK",
    "SIG_SETMASK",
    "sigpending",
)
_POSIX_ONLY_OS = (
    "fork",
    "forkpty",
    "openpty",
    "setsid",
    "getsid",
    "killpg",
    "getpgid",
    "setpgid",
    "getpgrp",
    "sysconf",
    "sysconf_names",
    "pread",
    "pwrite",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "nice",
    "pidfd_open",
    "sched_getaffinity",
    "sched_setaffinity",
    "wait3",
    "wait4",
    "WNOHANG",
    "statvfs",
    "getloadavg",
    "uname",
    "fchown",
    "chown",
    "O_NONBLOCK",
    "O_CLOEXEC",
    "O_NOFOLLOW",
    "O_DIRECTORY",
    "ttyname",
    "mkfifo",
    "posix_spawn",
    "register_at_fork",
    "setuid",
    "setgid",
    "sync",
)
HIDDEN_MODULES = {
    "windows": {
        "fcntl",
        "resource",
        "pty",
        "termios",
        "tty",
        "grp",
        "pwd",
        "posix",
        "syslog",
        "readline",
        "curses",
    },
    "macos": set(),
    "oldlinux": set(),
}
HIDDEN_NAMES = {
    "windows": {
        "os": _POSIX_ONLY_OS,
        "signal": _POSIX_ONLY_SIGNALS,
        "socket": (
            "AF_UNIX",
            "SOCK_SEQPACKET",
            "send_fds",
            "recv_fds",
            "socketpair",
            "CMSG_LEN",
            "SCM_RIGHTS",
        ),
        "select": ("poll", "POLLIN", "epoll"),
    },
    "macos": {
        "os": ("pidfd_open", "sched_getaffinity", "sched_setaffinity", "posix_fadvise"),
        "signal": ("pidfd_send_signal", "SIGRTMIN", "SIGRTMAX", "SIGPOLL", "sigtimedwait"),
        "resource": (
            "prlimit",
            "RLIMIT_MSGQUEUE",
            "RLIMIT_NICE",
            "RLIMIT_RTPRIO",
            "RLIMIT_SIGPENDING",
        ),
        "select": ("epoll",),
    },
    "oldlinux": {},
}
PLATFORM_NAME = {"windows": "win32", "macos": "darwin", "oldlinux": "linux"}
OS_NAME = {"windows": "nt", "macos": "posix", "oldlinux": "posix"}


def simulated(platform: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """An environment (`env`, default this one) for a command that runs as on `platform`."""
    assert platform in HIDDEN_MODULES, platform
    env = dict(os.environ if env is None else env)
    env[VARIABLE] = platform
    env["PYTHONPATH"] = os.pathsep.join([str(SITE), str(ROOT)])
    return env


class _View(types.ModuleType):
    """A module as the platform has it: the real one less `hidden`, plus `given`."""

    def __init__(
        self, real: types.ModuleType, hidden: tuple[str, ...] | set[str], given: dict[str, object]
    ) -> None:
        super().__init__(real.__name__, real.__doc__)
        object.__setattr__(self, "_sim_real", real)
        object.__setattr__(self, "_sim_hidden", frozenset(hidden))
        object.__setattr__(self, "_sim_given", given)

    def __getattribute__(self, name: str) -> object:
        if name.startswith("_sim_") or name in ("__dict__", "__class__"):
            return object.__getattribute__(self, name)
        if name in object.__getattribute__(self, "_sim_hidden"):
            raise AttributeError(
                f"module {self.__name__!r} has no attribute {name!r} (simulated platform)"
            )
        given = object.__getattribute__(self, "_sim_given")
        if name in given:
            return given[name]
        return getattr(object.__getattribute__(self, "_sim_real"), name)

    def __setattr__(self, name: str, value: object) -> None:
        setattr(self._sim_real, name, value)  # (sys.argv = ..., os.environ stays one)

    def __dir__(self) -> list[str]:
        return [n for n in dir(self._sim_real) if n not in self._sim_hidden] + list(self._sim_given)


def _from_project(globals_: object) -> bool:
    """The importer is a module of the project (`python -m server.cli` too: its __main__)."""
    if not isinstance(globals_, dict):
        return False
    name = globals_.get("__name__", "")
    spec = globals_.get("__spec__")
    if name == "__main__" and spec is not None:
        name = spec.name
    return isinstance(name, str) and name.split(".")[0] in PROJECT


def _macos_resource(real: types.ModuleType) -> dict[str, object]:
    def setrlimit(which: int, limits: tuple[int, int]) -> None:
        if which == real.RLIMIT_AS and limits[0] != real.RLIM_INFINITY:
            # What CPython says for macOS's EINVAL: it does not enforce an address-space limit.
            raise ValueError("current limit exceeds maximum limit")
        real.setrlimit(which, limits)

    return {"setrlimit": setrlimit}


def _oldlinux_os(real: types.ModuleType) -> dict[str, object]:
    def pidfd_open(pid: int, flags: int = 0) -> int:
        raise OSError(errno.ENOSYS, "Function not implemented")

    return {"pidfd_open": pidfd_open}


def _windows_msvcrt() -> types.ModuleType:
    """msvcrt.locking as Windows has it (LK_NBLCK fails with EACCES on a region another
    process holds; LK_UNLCK frees it), from the current file position, by byte ranges."""
    import fcntl

    module = types.ModuleType("msvcrt", "msvcrt's file locking, as the simulated Windows has it")
    module.LK_UNLCK, module.LK_LOCK, module.LK_NBLCK, module.LK_RLCK, module.LK_NBRLCK = (
        0,
        1,
        2,
        3,
        4,
    )

    def locking(fd: int, mode: int, nbytes: int) -> None:
        start = os.lseek(fd, 0, os.SEEK_CUR)
        if mode == module.LK_UNLCK:
            fcntl.lockf(fd, fcntl.LOCK_UN, nbytes, start)
            return
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, nbytes, start)
        except OSError:
            raise PermissionError(errno.EACCES, "Permission denied") from None

    module.locking = locking
    return module


def install(platform: str) -> None:
    """From now on, the project's imports see `platform`'s modules (see the docstring)."""
    import ctypes
    import resource
    import select
    import signal
    import socket

    real_import = builtins.__import__
    hidden_modules = HIDDEN_MODULES[platform]
    names = HIDDEN_NAMES[platform]
    sys_view = _View(sys, (), {"platform": PLATFORM_NAME[platform]})
    given: dict[str, dict[str, object]] = {"os": {"name": OS_NAME[platform]}}
    if platform == "macos":
        given["resource"] = _macos_resource(resource)
    if platform == "oldlinux":
        given["os"] |= _oldlinux_os(os)
    views: dict[str, types.ModuleType] = {"sys": sys_view}
    for module in (os, signal, socket, select, resource):
        if platform != "windows" or module.__name__ not in hidden_modules:
            views[module.__name__] = _View(
                module, names.get(module.__name__, ()), given.get(module.__name__, {})
            )
    if platform in ("macos", "windows"):

        class CDLL(ctypes.CDLL):  # no prctl but on Linux
            def __getattr__(self, name: str) -> object:
                if name == "prctl":
                    raise AttributeError(name)
                return super().__getattr__(name)

        views["ctypes"] = _View(ctypes, (), {"CDLL": CDLL})
    extra = {"msvcrt": _windows_msvcrt()} if platform == "windows" else {}

    def filtered_import(
        name: str,
        globals: object = None,
        locals: object = None,
        fromlist: object = (),
        level: int = 0,
    ) -> object:
        if level == 0 and _from_project(globals):
            top = name.split(".")[0]
            if top in hidden_modules:
                raise ModuleNotFoundError(
                    f"No module named {name!r} (simulated {platform})", name=name
                )
            if top in extra:
                return extra[top]
            if top in views:
                module = real_import(name, globals, locals, fromlist, level)
                if not fromlist:  # `import os`, `import os.path`: the name bound is os
                    return views[top]
                return views.get(name, module)  # `from os import fork`; os.path stays real
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = filtered_import
    if platform in ("macos", "windows"):
        real_open = builtins.open

        def project_open(file: object, *args: object, **kwargs: object) -> object:
            if str(file).startswith("/proc/") and _from_project(sys._getframe(1).f_globals):
                raise FileNotFoundError(
                    errno.ENOENT, "No such file or directory (no /proc here)", str(file)
                )
            return real_open(file, *args, **kwargs)

        builtins.open = project_open
