"""The optimal table as a review wants it: the one loaded if it is built, never an estimate
in its place; and its build, when the player chooses to wait for it.

The program's loaded copy is shared with the hard bot and the hints (bots/dice_levels.py),
so a review after a game against a hard bot costs no second load. A build is the same
background build they start (solver/background.py), or, for the command line, one built
right here with a progress line (solver/table.py ensure_built).

Light to import: numpy and the solver load when a table is asked for, and `loaded()` learns
that none is built without them (the host asks at every dice game's end, for the records).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kismet_tui.solver import background, cache_folder

if TYPE_CHECKING:
    import numpy as np

    from kismet_tui.solver import table

    Table = np.ndarray


def none_built() -> bool:
    """No table file is there and this program started no build: nothing to load (learnt
    without numpy or the solver)."""
    return not background.any_started() and not cache_folder.holds_a_table()


def built_now() -> bool | None:
    """Cheaply, without loading anything: True when the table's file is there (or a build
    in this program finished), False when it is not built, None while a build runs."""
    if none_built():
        return False
    from kismet_tui.solver import table

    build = background.current(table.cache_path())
    if build is not None and build.state not in ("ready", "failed"):
        return None
    if build is not None and build.V is not None:
        return True
    return table.cache_path().exists()


def loaded() -> Table | None:
    """The table if it is built (loaded once per program), else None. Never starts a build:
    waiting for one is the player's choice."""
    if none_built():
        return None  # (nothing built: numpy and the solver stay unloaded)
    from kismet_tui.bots import dice_levels
    from kismet_tui.solver import table

    path = table.cache_path()
    build = background.current(path)
    if build is not None:
        return build.V  # None while it runs, or if it failed
    if not path.exists():
        return None
    return dice_levels.optimal_table()


def start_build() -> None:
    """Build it in the background (or follow the build already running)."""
    from kismet_tui.solver import table

    background.start(table.cache_path())


def build_state() -> tuple[str, float, str | None] | None:
    """The build of this program, if any: (state, fraction done, why it failed)."""
    from kismet_tui.solver import table

    build = background.current(table.cache_path())
    if build is None:
        return None
    return build.state, build.fraction, build.error


def listen(callback: Callable[[], None]) -> Callable[[], None]:
    """callback() from the build's thread whenever it moves on; returns the call that stops it."""
    return background.listen(callback)


def build_here(
    progress: table.Progress, on_wait: Callable[[], object], on_damaged: Callable[[str], object]
) -> Table:
    """Build the table now, in this process (or wait for another program building it)."""
    from kismet_tui.solver import table

    return table.ensure_built(progress=progress, on_wait=on_wait, on_damaged=on_damaged)


def text_progress() -> table.Progress:
    """The solver's progress line, on stderr as it is now."""
    import sys

    from kismet_tui.solver import table

    return table.text_progress(sys.stderr)


def load_checked() -> tuple[Table | None, str | None]:
    """(the table, None) or (None, why not) from this user's cache."""
    from kismet_tui.solver import table

    return table.load_checked(table.cache_path())
