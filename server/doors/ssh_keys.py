"""`kismet-host --ssh-keys FILE`: the keys let in over ssh, as OpenSSH reads authorized_keys.

Each line's options are honoured as OpenSSH means them, so a file written for sshd means
here what it means there: `from=` lets the key in only from those addresses, `expiry-time=`
not after that time. `kismet`'s Invite lets in keys pasted on its screen the same way
(`PastedKeys`). The game needs a terminal and runs nothing but itself, so a key that
may have no terminal (`no-pty`, or `restrict` without `pty`) or may run only one command
(`command=`) is not let in at all, and the host says so at start. The file is read again
whenever it changes (its size, time or inode), at the next login: a removed key is out at
once, without a restart. A file that cannot be read any more lets nobody in until it can.
"""

from __future__ import annotations

import calendar
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import asyncssh

# The parser SSHAuthorizedKeys itself uses, one entry per line: its public API gives a key's
# options only at a login, and the host must say at start which keys it will not let in.
from asyncssh.auth_keys import _SSHAuthorizedKeyEntry

log = logging.getLogger("kismet.ssh")


@dataclass
class KeyLine:
    number: int
    entry: _SSHAuthorizedKeyEntry
    expires: float | None  # a Unix time, from expiry-time


def parse_expiry(value: str) -> float:
    """OpenSSH's expiry-time: YYYYMMDD[HHMM[SS]], local time, or UTC with a trailing Z."""
    utc = value.endswith(("Z", "z"))
    digits = value[:-1] if utc else value
    if not digits.isdigit() or len(digits) not in (8, 12, 14):
        raise ValueError(f"expiry-time {value!r} is not YYYYMMDD[HHMM[SS]][Z]")
    digits = digits.ljust(14, "0")
    stamp = time.strptime(digits, "%Y%m%d%H%M%S")
    if utc:
        return float(calendar.timegm(stamp))
    return time.mktime(stamp)


def refusal(options: dict) -> str | None:
    """Why a key with these options is not let in to play, or None."""
    if "command" in options:
        return "it may run only one command (command=), and the game is not a command"
    if options.get("no-pty"):
        return "it may have no terminal (no-pty), and the game needs one"
    if options.get("restrict") and not options.get("pty"):
        return "it is restricted to no terminal (restrict, without pty), and the game needs one"
    return None


def read_lines(path: Path) -> tuple[list[KeyLine], list[str]]:
    """The keys of `path` that may play, and a plain line for each one that may not."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return parse_lines(text, lambda number: f"{path}, line {number}")


def parse_lines(text: str, where_of: Callable[[int], str]) -> tuple[list[KeyLine], list[str]]:
    """The keys of `text` (authorized_keys lines) that may play, and a plain line, starting
    with `where_of(line number)`, for each one that may not."""
    keys: list[KeyLine] = []
    refused: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = where_of(number)
        try:
            entry = _SSHAuthorizedKeyEntry(line)
        except (ValueError, asyncssh.KeyImportError) as exc:
            refused.append(f"{where}: not a key that can be read ({exc}).")
            continue
        if entry.key is None or "cert-authority" in entry.options:
            refused.append(f"{where}: certificates are not used here; list the key itself.")
            continue
        why = refusal(entry.options)
        if why is not None:
            refused.append(f"{where}: not let in: {why}.")
            continue
        expires = None
        expiry = entry.options.get("expiry-time")
        if isinstance(expiry, list) and expiry:
            try:
                expires = min(parse_expiry(str(value)) for value in expiry)
            except ValueError as exc:
                refused.append(f"{where}: not let in: {exc}.")
                continue
        keys.append(KeyLine(number, entry, expires))
    return keys, refused


def allowed(keys: list[KeyLine], key: asyncssh.SSHKey, address: str, now: float) -> bool:
    """`key` is one of `keys` and may log in from `address` at `now`."""
    for line in keys:
        if line.entry.key != key:
            continue
        if line.expires is not None and now >= line.expires:
            continue
        try:
            if line.entry.match_options(address, address, None):
                return True
        except ValueError:  # an address that is no IP address matches no from=
            continue
    return False


class PastedKeys:
    """Keys pasted for one evening (`kismet`'s Invite: friends' public key lines)."""

    def __init__(self, text: str) -> None:
        self.keys, self.refused = parse_lines(text, lambda number: f"Line {number}")

    def allows(self, key: asyncssh.SSHKey, address: str, now: float | None = None) -> bool:
        return allowed(self.keys, key, address, time.time() if now is None else now)


class AuthorizedKeys:
    """The keys of one authorized_keys file, read again when it changes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stamp = self._stat()
        # A file that cannot be read at start is an error for the host to report (OSError).
        self.keys, self.refused = read_lines(self.path)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_ino, info.st_size, info.st_mtime_ns

    def _fresh(self) -> None:
        stamp = self._stat()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            self.keys, self.refused = read_lines(self.path)
        except OSError as exc:
            log.warning(
                "cannot read the ssh keys in %s (%s): nobody gets in until it can be read",
                self.path,
                exc.strerror or exc,
            )
            self.keys, self.refused = [], []
            return
        log.info("read the ssh keys in %s again: %d let in", self.path, len(self.keys))
        for line in self.refused:
            log.warning("%s", line)

    def allows(self, key: asyncssh.SSHKey, address: str, now: float | None = None) -> bool:
        """`key` may log in from `address` now (the file as it is now)."""
        self._fresh()
        return allowed(self.keys, key, address, time.time() if now is None else now)
