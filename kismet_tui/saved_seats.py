"""Rejoin tokens kept between runs of `kismet-join`, so a closed terminal loses no seat.

Over ssh, a dropped connection kills the client process with it; the host keeps the seat for
the token it gave, but a new process would not know that token. `kismet-join` therefore keeps
one token per host address and player name in the player's own folder
(kismet_tui/player_files.py, readable by the user alone) and offers it on the next hello: the host gives the seat back. A token the host does
not know (it was restarted without its state, say) is harmless: the host greets a new player.

A file that cannot be read as tokens (cut short, overwritten, not JSON) is `Damaged`: it is
set aside beside itself (FILE.damaged, for whoever wants to look), the player is told their
saved seat could not be read, and the next save starts a good file again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from protocol.host_messages import Welcome

    from .net.client import Client

FILE_NAME = "rejoin-tokens.json"


def default_path() -> Path:
    from .player_files import path

    return path(FILE_NAME)  # the player's own folder (moved there from the old place)


def _key(address: str, name: str) -> str:
    return f"{address}/{name}"


class Damaged:
    """A tokens file that could not be read; `words` tells the player, plainly."""

    __slots__ = ("path", "moved_to", "words")

    def __init__(self, path: Path, moved_to: Path | None, why: str):
        self.path, self.moved_to = path, moved_to
        kept = f"it is kept as {moved_to}" if moved_to else "it could not be set aside"
        self.words = (
            f"Your saved seat could not be read ({path} {why}; {kept}), so you join as someone new."
        )


def _read(path: Path) -> dict | Damaged:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        return Damaged(path, None, f"cannot be opened: {exc.strerror or exc}")
    except ValueError:
        return _set_aside(path, "is damaged")
    return data if isinstance(data, dict) else _set_aside(path, "holds no saved seats")


def _set_aside(path: Path, why: str) -> Damaged:
    """Rename the damaged file beside itself (the newest damaged one is kept)."""
    moved_to = path.with_name(path.name + ".damaged")
    try:
        os.replace(path, moved_to)
    except OSError:
        return Damaged(path, None, why)
    return Damaged(path, moved_to, why)


def load_token(address: str, name: str, path: Path | None = None) -> str | Damaged | None:
    """The token saved for this host and name; None when there is none; Damaged when the
    file could not be read (then set aside, so this is said once)."""
    data = _read(path or default_path())
    if isinstance(data, Damaged):
        return data
    token = data.get(_key(address, name))
    return token if isinstance(token, str) else None


def last_name(address: str, path: Path | None = None) -> str | None:
    """The name last played under at this host from here (a browser's own file: the name
    it typed before), to offer when a name is asked for again; None when there is none."""
    try:  # (a damaged file is left for load_token, which sets it aside and says so)
        data = json.loads((path or default_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get(_last_key(address)) if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def _last_key(address: str) -> str:
    return f"{address}#last-name"  # (never a seat's key: those have a "/" after the address)


def save_token(address: str, name: str, token: str, path: Path | None = None) -> None:
    """Remember `token` (and `name`, as the last one used here); written whole to a private
    temporary file, then renamed over."""
    path = path or default_path()
    data = _read(path)
    if isinstance(data, Damaged):
        data = {}  # set aside (or unreadable): a good file starts again
    if data.get(_key(address, name)) == token and data.get(_last_key(address)) == name:
        return
    data[_key(address, name)] = token
    data[_last_key(address)] = name
    write_private(path, data)


def write_private(path: Path, data: dict) -> None:
    """`data` as JSON in `path`, readable by the user alone: a temporary file, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=1, sort_keys=True)
    os.replace(temporary, path)


async def connect_keeping_seat(
    client: Client,
    host: str,
    port: int,
    name: str,
    *,
    fresh: bool = False,
    path: Path | None = None,
    say: Callable[[str], object] | None = None,
) -> Welcome:
    """Connect `client` with the token saved for this host and name (unless `fresh`), then
    save the token the host gave. A damaged tokens file is told with `say(words)`, and in
    the words of a refused name (the seat it lost may be what holds the name)."""
    from .net import RequestError

    address = f"{host}:{port}"
    saved = None if fresh else load_token(address, name, path)
    damaged = saved if isinstance(saved, Damaged) else None
    token = None if isinstance(saved, Damaged) else saved
    if damaged is not None and say is not None:
        say(damaged.words)
    try:
        welcome = await client.connect(host, port, name, token)
    except RequestError as exc:
        if damaged is None or exc.code != "name_taken":
            raise
        raise RequestError(exc.code, f"{damaged.words} {exc.words}") from None
    try:
        if client.token is not None:  # (the welcome always gives one)
            save_token(address, name, client.token, path)
    except OSError:
        pass  # a read-only home folder: play on, only a restarted client loses its seat
    return welcome
