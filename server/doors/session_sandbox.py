"""What a door session's process may open: not the host's key, its game logs or its records.

A session's client runs on this machine as the host's user, for whoever logged in. On Linux
(5.13 and later) it is confined with Landlock, the kernel's sandbox for unprivileged
processes (it binds root too): as it starts (in the child just forked, before any of the
player's input is read), it restricts itself, for good and for its children, to

- reading (and running) what the interpreter and the client are made of: Python's install,
  the folders on `sys.path` (never the current folder), the client's packages (the folder
  holding them may only be listed), /usr, /lib*,
  /bin, /etc, and the kernel's /proc and /sys (Landlock also keeps it from tracing, or
  reading the memory of, any process outside its sandbox: the host's included);
- reading and writing its devices (/dev: its terminal, /dev/null, /dev/urandom);
- reading and writing the solver's table cache (the same user cache kismet_tui/solver/table.py
  builds it in), and its own seat folder (server/doors/seat_files.py: its rejoin tokens, and its
  temporary files: TMPDIR points there);

and nothing else: the state folder (the host's key, game logs, records, other players'
seats) cannot be opened, whatever the client is made to do. Where the kernel has Landlock's
scopes (ABI 6, Linux 6.12), it cannot signal a process outside its sandbox either (the host,
its warm parent, another session) nor reach one by an abstract unix socket. Network access
is not restricted (the client reaches the host over loopback).

Where the kernel has no Landlock (an older Linux) or the system is not Linux, a session
could read what the host's user can: the host says so in words when its doors open, and
also when the state folder lies inside a folder a session must read.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Landlock's system calls (one number on every architecture) and flags (linux/landlock.h).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 7, 1 << 8
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
# What a ruleset of each ABI handles (denies unless a rule allows): ABI 1's thirteen rights,
# then REFER (2), TRUNCATE (3), IOCTL_DEV (5).
_ABI_1 = (1 << 13) - 1
HANDLED = {1: _ABI_1, 2: _ABI_1 | REFER, 3: _ABI_1 | REFER | TRUNCATE, 4: _ABI_1 | REFER | TRUNCATE}
HANDLED_LATEST = _ABI_1 | REFER | TRUNCATE | IOCTL_DEV  # ABI 5 and later
FILE_RIGHTS = (
    EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
)  # what a rule on a file may hold

# ABI 6's scopes: no signal to, and no abstract unix socket of, a process outside the sandbox.
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
DEVICES = READ | WRITE_FILE | TRUNCATE | IOCTL_DEV
OWN = READ | WRITE_FILE | TRUNCATE | REMOVE_FILE | REMOVE_DIR | MAKE_REG | MAKE_DIR | REFER

SYSTEM_FOLDERS = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
)

Rules = list[tuple[str, int]]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_abi() -> int:
    """The Landlock ABI this kernel offers (0: none, or not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        abi = _libc().syscall(
            ctypes.c_long(_CREATE_RULESET),
            None,
            ctypes.c_long(0),
            ctypes.c_long(_CREATE_RULESET_VERSION),
        )
    except (OSError, AttributeError):
        return 0
    return max(0, int(abi))


def solver_cache() -> Path:
    """Where the client keeps the solver's table (kismet_tui/solver/table.py cache_path's
    folder, found the same way without loading the solver)."""
    override = os.environ.get("KISMET_SOLVER_CACHE")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kismet"))


class SessionSandbox:
    """The confinement of one host's door sessions: `rules(own_folder)` for each session,
    applied in its process by `confine`; `words()` for the host's start when there is none."""

    def __init__(self, state_dir: str | Path) -> None:
        self.state_dir = Path(state_dir).resolve()
        self.abi = landlock_abi()
        here = Path.cwd().resolve()
        readable = {
            Path(sys.prefix),
            Path(sys.base_prefix),
            Path(sys.exec_prefix),
            Path(sys.executable).resolve().parent,
        }
        readable |= {
            Path(entry).resolve() for entry in sys.path if entry and Path(entry).resolve() != here
        }
        readable |= {Path(folder) for folder in SYSTEM_FOLDERS}
        # The client's own packages, wherever they are (the current folder, in a checkout).
        import kismet_tui
        import protocol

        packages = {
            Path(package.__file__).resolve().parent
            for package in (kismet_tui, protocol)
            if package.__file__
        }
        readable |= packages
        self.read = sorted(str(path) for path in readable if path.exists())
        # The folders holding them may be listed (an import looks for the package there),
        # which shows names only: no file in them can be read but the packages'.
        self.listed = sorted(str(package.parent) for package in packages)
        self.cache = solver_cache()

    def rules(self, own_folder: str | Path) -> Rules:
        """What a session whose seat folder is `own_folder` may open, and how."""
        rules: Rules = [(path, READ) for path in self.read] + [
            (path, READ_DIR) for path in self.listed
        ]
        rules += [("/dev", DEVICES), (str(self.cache), OWN), (str(own_folder), OWN)]
        return rules

    @property
    def confines(self) -> bool:
        return self.abi > 0

    def words(self) -> str | None:
        """What the host says at start when sessions could read its files; None when not."""
        if not self.confines:
            why = (
                "this system has no Landlock (Linux 5.13 or later)"
                if sys.platform.startswith("linux")
                else "only Linux can confine them"
            )
            return (
                f"(Door sessions run as this host's user and could read its state folder "
                f"{self.state_dir}, its key and game logs included: {why}.)"
            )
        inside = [
            path
            for path in [*self.read, str(self.cache)]
            if self.state_dir == Path(path) or Path(path) in self.state_dir.parents
        ]
        if inside:
            return (
                f"(Door sessions may read {inside[0]}, which holds this host's state folder "
                f"{self.state_dir}: give the host a state folder elsewhere (--state-dir) "
                f"so they cannot read its key and game logs.)"
            )
        return None


def confine(rules: Sequence[Sequence[object]] | None) -> None:
    """In a session's own process, before it runs the client: allow it `rules` (path,
    rights) and nothing else on the file system, for good. Nothing when `rules` is None
    (no Landlock here, or --door-sessions spawn on a system without it). Raises OSError
    when the kernel refuses: the session must not run unconfined."""
    if not rules:
        return
    libc = _libc()
    abi = landlock_abi()
    if abi < 1:
        raise OSError("Landlock is not available to confine this session")
    handled = HANDLED.get(abi, HANDLED_LATEST)
    # (handled_access_fs; from ABI 6 also handled_access_net, left alone, and the scopes)
    attr_bytes = (
        struct.pack("=QQQ", handled, 0, SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET)
        if abi >= 6
        else struct.pack("=Q", handled)
    )
    attr = ctypes.create_string_buffer(attr_bytes)
    ruleset = libc.syscall(
        ctypes.c_long(_CREATE_RULESET), attr, ctypes.c_long(len(attr_bytes)), ctypes.c_long(0)
    )
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path, rights in rules:
            try:
                beneath = os.open(str(path), os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # (a folder this system has not: nothing to allow)
            try:
                allowed = int(rights) & handled  # type: ignore[call-overload]
                if not stat.S_ISDIR(os.fstat(beneath).st_mode):
                    allowed &= FILE_RIGHTS
                rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, beneath))
                if (
                    libc.syscall(
                        ctypes.c_long(_ADD_RULE),
                        ctypes.c_long(ruleset),
                        ctypes.c_long(_RULE_PATH_BENEATH),
                        rule,
                        ctypes.c_long(0),
                    )
                    != 0
                ):
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(beneath)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot set no_new_privs")
        if (
            libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_long(ruleset), ctypes.c_long(0))
            != 0
        ):
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


def session_rules(sandbox: SessionSandbox | None, own_folder: str | Path | None) -> Rules | None:
    """The rules for one session, or None when it is not confined (no sandbox, or none here)."""
    if sandbox is None or not sandbox.confines or own_folder is None:
        return None
    return sandbox.rules(own_folder)


def own_environment(own_folder: str | Path | None) -> Mapping[str, str]:
    """What a confined session's environment needs: its temporary files in its own folder."""
    return {"TMPDIR": str(own_folder)} if own_folder is not None else {}
