"""The solver's background child (`python -m kismet_tui.solver --lines`, as
kismet_tui/solver/background.py starts it) on a small table, for the tests of its repair and
of two builders at once (tests/test_solver_table.py): the real child's code runs (the lock,
the check that finds a damaged file, setting it aside, the save, the lines it prints), but its
build solves only the first levels of the game (the start and the two after it: a few
thousand states) on the session's sound table (tests/conftest.py optimal_cache) for the
others, instead of the whole table (tens of seconds, more on a busy machine). The whole build
is checked once per session by optimal_cache itself and by the solver's own tests.

    python -m tests.solver_standin SOUND_TABLE.npy
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from kismet_tui.solver import __main__ as child
from kismet_tui.solver import table
from kismet_tui.solver.states import level_states

SOLVED = (2, 1, 0)  # the levels solved for real (boxes filled), the last the start


def command(sound: Path) -> list[str]:
    """The stand-in child's command line (run from the tree's root, as the tests are)."""
    return [sys.executable, "-m", "tests.solver_standin", str(sound)]


def small_build(sound: Path):
    """table.build as the child calls it (every level), solving SOLVED alone."""
    full_build = table.build

    def build(progress=None, levels=None, V=None) -> np.ndarray:
        V = np.load(sound).astype(np.float64)
        for level in SOLVED:
            V[level_states(level)] = 0.0  # (solved again below, from the levels after)
        return full_build(progress=progress, levels=SOLVED, V=V)

    return build


if __name__ == "__main__":
    table.build = small_build(Path(sys.argv[1]))
    sys.exit(child.main(["--lines"]))
