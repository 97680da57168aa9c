"""Where the optimal table's file is kept, and whether one is there at all: light on
purpose (no numpy, no solver), so a program that never built the table learns so without
loading them. table.py names the file in this folder (its name carries the rules'
fingerprint, which takes numpy to work out).
"""

from __future__ import annotations

import os
from pathlib import Path

# Every table file's name, whatever its format version and rules' fingerprint (table.py
# cache_path). A temporary file being written (".NAME.PID.tmp") or one set aside
# ("NAME.damaged") does not match.
TABLE_FILES = "dice-optimal-v*.npy"


def folder() -> Path:
    """The user's cache folder for the game (KISMET_SOLVER_CACHE instead, when set)."""
    override = os.environ.get("KISMET_SOLVER_CACHE")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kismet"))


def holds_a_table() -> bool:
    """Whether any table file is in the folder: False means none is built for these rules
    either (True says nothing of which, nor whether it is sound: table.py checks)."""
    try:
        return any(folder().glob(TABLE_FILES))
    except OSError:
        return True  # (cannot tell: the caller looks at the file itself)
