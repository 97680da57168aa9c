"""Rejoin tokens kept between runs of `kismet-join`, so a closed terminal loses no seat.

Over ssh, a dropped connection kills the client process with it; the host keeps the seat for
the token it gave, but a new process would not know that token. `kismet-join` therefore keeps
one token per host address and player name in the user's state folder (readable by the user
alone) and offers it on the next hello: the host gives the seat back. A token the host does
not know (it was restarted without its state, say) is harmless: the host greets a new player.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

FILE_NAME = "rejoin-tokens.json"


def default_path() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir("kismet")) / FILE_NAME


def _key(address: str, name: str) -> str:
    return f"{address}/{name}"


def _read(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_token(address: str, name: str, path: Path | None = None) -> str | None:
    token = _read(path or default_path()).get(_key(address, name))
    return token if isinstance(token, str) else None


def save_token(address: str, name: str, token: str, path: Path | None = None) -> None:
    """Remember `token`; written whole to a private temporary file, then renamed over."""
    path = path or default_path()
    data = _read(path)
    if data.get(_key(address, name)) == token:
        return
    data[_key(address, name)] = token
    write_private(path, data)


def write_private(path: Path, data: dict) -> None:
    """`data` as JSON in `path`, readable by the user alone: a temporary file, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=1, sort_keys=True)
    os.replace(temporary, path)


async def connect_keeping_seat(client, host: str, port: int, name: str, *, fresh: bool = False,
                               path: Path | None = None) -> dict:
    """Connect `client` with the token saved for this host and name (unless `fresh`), then
    save the token the host gave."""
    address = f"{host}:{port}"
    token = None if fresh else load_token(address, name, path)
    welcome = await client.connect(host, port, name, token)
    try:
        save_token(address, name, client.token, path)
    except OSError:
        pass  # a read-only home folder: play on, only a restarted client loses its seat
    return welcome
