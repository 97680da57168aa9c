"""Where this computer's player keeps their own files, apart from any host's state.

The player's secrets and memories (`player-keys.json`: what their records follow at each
host; `rejoin-tokens.json`: their seats to take back; `known-hosts.json`: the host keys they
have met) live in `player/` in the user's data folder (platformdirs user_data_dir). A host's
state folder (`kismet-host --state-dir`, by default the user's state folder) holds only the
host's own: deleting it, or a host's --state-dir pointing anywhere, loses no seat the player
has at other hosts.

Before, the keys and tokens sat in the user's state folder (the host's default state folder)
and the known hosts in the data folder itself: `path()` moves such a file to its new place
the first time it is asked for it, when nothing is there yet.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

FOLDER = "player"
log = logging.getLogger(__name__)


def folder() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("kismet")) / FOLDER


def old_places(name: str) -> list[Path]:
    from platformdirs import user_data_dir, user_state_dir

    return [Path(user_state_dir("kismet")) / name, Path(user_data_dir("kismet")) / name]


def path(name: str) -> Path:
    """The player's file `name`, moved here from its old place first if it is still there."""
    new = folder() / name
    if new.exists():
        return new
    for old in old_places(name):
        if old != new and old.is_file():
            try:
                new.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                shutil.move(os.fspath(old), os.fspath(new))  # (a rename where it can)
            except OSError as exc:  # it stays where it was, and is read there this time
                log.warning("could not move %s to %s: %s", old, new, exc)
                return old
            log.info("moved the player's %s to %s", old, new)
            break
    return new
