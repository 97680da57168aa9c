"""The table of optimal values: built level by level, cached on disk, loaded in a blink.

V[upper, lower] is the expected score still to come, under optimal play, from the start of
a turn in that state (states.py). States with 15 filled boxes are worth 0; a state with n
filled boxes only leads to states with n + 1, so the levels are solved from 14 down to 0,
each in batches (turn.py). The expected score of a whole solitaire game is V[start].

The cache file lives in the user's cache folder and its name carries the table format
version and a fingerprint of the rules (space.rules_fingerprint), so a change of either
builds a new table rather than trusting an old one.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from .space import rules_fingerprint
from .states import L_REACHABLE, N_LOWER, N_UPPER, level_states
from .turn import state_values

FORMAT_VERSION = 1
BATCH = 8192


def cache_path() -> Path:
    override = os.environ.get("KISMET_SOLVER_CACHE")
    if override:
        folder = Path(override)
    else:
        from platformdirs import user_cache_dir

        folder = Path(user_cache_dir("kismet"))
    return folder / f"dice-optimal-v{FORMAT_VERSION}-{rules_fingerprint()}.npy"


def build(progress=None, levels=range(14, -1, -1), V: np.ndarray | None = None) -> np.ndarray:
    """Solve the levels given (all by default) and return V. `progress(done, total)` is called
    after each batch. Passing a V filled for higher levels lets tests solve a few levels."""
    if V is None:
        V = np.zeros((N_UPPER, N_LOWER))
    work = [level_states(n) for n in levels]
    total = sum(len(u) for u, _ in work)
    done = 0
    for u_all, l_all in work:
        values = np.empty(len(u_all))
        for start in range(0, len(u_all), BATCH):
            u, l = u_all[start:start + BATCH], l_all[start:start + BATCH]
            values[start:start + BATCH] = state_values(V, u, l)
            done += len(u)
            if progress:
                progress(done, total)
        V[u_all, l_all] = values
    return V


def text_progress(stream=sys.stderr):
    """A plain-text progress bar on stderr."""
    started = time.monotonic()

    def show(done: int, total: int) -> None:
        width = 40
        filled = width * done // total
        elapsed = time.monotonic() - started
        eta = elapsed * (total - done) / done if done else 0
        stream.write(f"\rBuilding the Kismet table [{'#' * filled}{'.' * (width - filled)}] "
                     f"{100 * done // total:3d}%  {elapsed:5.0f}s, about {eta:4.0f}s left ")
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def save(V: np.ndarray, path: Path | None = None, info: dict | None = None) -> Path:
    """Write the table (float32: 12 MB, values to about 1e-5) and, beside it, `info` as JSON
    (how long the build took, the game's value in full precision)."""
    path = path or cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, V.astype(np.float32))
    os.replace(tmp, path)  # a reader never sees half a file
    if info is not None:
        path.with_suffix(".json").write_text(json.dumps(info, indent=1))
    return path


def build_info(path: Path | None = None) -> dict | None:
    try:
        return json.loads((path or cache_path()).with_suffix(".json").read_text())
    except (OSError, ValueError):
        return None


def load(path: Path | None = None) -> np.ndarray | None:
    """The cached table, or None when it has not been built (or the file is damaged)."""
    path = path or cache_path()
    try:
        V = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if V.shape != (N_UPPER, N_LOWER) or not np.isfinite(V[:, L_REACHABLE]).all():
        return None
    return V.astype(np.float64)


def build_and_save(progress=None) -> tuple[np.ndarray, dict]:
    from .states import lower_index, upper_index

    started = time.monotonic()
    V = build(progress=progress)
    info = {"build_seconds": round(time.monotonic() - started, 1),
            "game_value": float(V[upper_index(0, 0), lower_index(0, False)]),
            "format": FORMAT_VERSION, "rules": rules_fingerprint()}
    save(V, info=info)
    return V, info
