"""The secret a player's records follow at each host: made once per host address, kept.

`kismet-join` (and `kismet`, for its own host) offers it in hello as `player_key`; the host
turns it into a records id (server/records/proof.py) that only this secret gives, so two
people with the same name keep apart records, and a player keeps theirs under a new name.
One secret per host: a host never learns the secret another host knows the player by. Kept
in the player's own folder (kismet_tui/player_files.py), readable by the user alone, beside
the rejoin tokens. A door session (ssh or browser, `KISMET_DOOR_PASS` set) sends none: it
runs as the host's user, so this file would be the host's, and the door proves the player
instead.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from .door_env import PASS_VARIABLE as DOOR_PASS_VARIABLE  # the door session's pass

FILE_NAME = "player-keys.json"


def default_path() -> Path:
    from .player_files import path

    return path(FILE_NAME)  # the player's own folder (moved there from the old place)


def player_key_for(address: str, path: Path | None = None) -> str | None:
    """The saved secret for the host at `address`, made and saved the first time; None in a
    door session, or when it cannot be kept (then the player plays without records)."""
    from .saved_seats import write_private

    if os.environ.get(DOOR_PASS_VARIABLE):
        return None
    path = path or default_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    key = data.get(address)
    if isinstance(key, str) and 16 <= len(key) <= 64:
        return key
    key = secrets.token_urlsafe(32)
    data[address] = key
    try:
        write_private(path, data)
    except OSError:
        return None
    return key
