"""The table of optimal values: built level by level, cached on disk, loaded in a blink.

V[upper, lower] is the expected score still to come, under optimal play, from the start of
a turn in that state (states.py). States with 15 filled boxes are worth 0; a state with n
filled boxes only leads to states with n + 1, so the levels are solved from 14 down to 0
(fast.py does it; build_reference() is the first, simpler algorithm, kept as the baseline of
benchmarks/dice_solver.py and as a check of fast.py). The expected score of a whole
solitaire game is V[start].

One cache file per machine user, in the user's cache folder: the host and the clients of
that user share it. Its name carries the table format version and a fingerprint of the
rules (space.rules_fingerprint), so a change of either builds a new table rather than
trusting an old one. Beside it a JSON sidecar holds the file's SHA-256: a damaged or
truncated table is detected and never used (load_checked says why). The checksum only tells
damage from the disk: a file rewritten whole with its sidecar (values negated, or zeros) has
a matching one, so the values are checked too: the game's value must be the known
GAME_VALUE, no value negative, and states drawn at random from every level must be what one
turn from the level after gives (the first algorithm, on V itself). A refused file is set
aside (NAME.damaged) and built again, with a word. Writers take a lock file
(ensure_built: the second builder waits, then finds the table built) and write under a
temporary name, then rename, so a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import numpy as np

from . import cache_folder
from .space import rules_fingerprint
from .states import L_REACHABLE, N_LOWER, N_UPPER, level_states
from .turn import state_values

# progress(done, total): called as batches of states are solved.
Progress = Callable[[int, int], None]

# 2: the sidecar holds the table's checksum (a version 1 file, without one, is not used).
FORMAT_VERSION = 2
BATCH = 8192  # states per batch of build_reference
# The expected score of a whole solitaire game under these rules (the rules' fingerprint is
# in the file name; tests/test_solver_table.py builds the table and finds this value).
GAME_VALUE = 315.1040
SPOT_CHECKS = 24  # states per level recomputed when a table is loaded (a few ms in all)


def cache_path() -> Path:
    return cache_folder.folder() / f"dice-optimal-v{FORMAT_VERSION}-{rules_fingerprint()}.npy"


def build(
    progress: Progress | None = None,
    levels: Iterable[int] = range(14, -1, -1),
    V: np.ndarray | None = None,
) -> np.ndarray:
    """Solve the levels given (all by default) and return V. `progress(done, total)` is called
    as batches finish. Passing a V filled for higher levels lets tests solve a few levels."""
    from . import fast

    return fast.build(progress=progress, levels=levels, V=V)


def build_reference(
    progress: Progress | None = None,
    levels: Iterable[int] = range(14, -1, -1),
    V: np.ndarray | None = None,
) -> np.ndarray:
    """build() by the first algorithm (turn.state_values, every box over every roll, batches
    of 8192 states): about five times slower; the benchmark's baseline."""
    if V is None:
        V = np.zeros((N_UPPER, N_LOWER))
    work = [level_states(n) for n in levels]
    total = sum(len(u) for u, _ in work)
    done = 0
    for u_all, l_all in work:
        values = np.empty(len(u_all))
        for start in range(0, len(u_all), BATCH):
            u, l = u_all[start : start + BATCH], l_all[start : start + BATCH]
            values[start : start + BATCH] = state_values(V, u, l)
            done += len(u)
            if progress:
                progress(done, total)
        V[u_all, l_all] = values
    return V


def text_progress(stream: TextIO = sys.stderr) -> Progress:
    """A plain-text progress bar on stderr (redrawn when the percentage moves)."""
    started = time.monotonic()
    shown = [-1]

    def show(done: int, total: int) -> None:
        percent = 100 * done // total
        if percent == shown[0]:
            return
        shown[0] = percent
        width = 40
        filled = width * done // total
        elapsed = time.monotonic() - started
        eta = elapsed * (total - done) / done if done else 0
        stream.write(
            f"\rBuilding the Kismet table [{'#' * filled}{'.' * (width - filled)}] "
            f"{percent:3d}%  {elapsed:5.0f}s, about {eta:4.0f}s left "
        )
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def _sidecar(path: Path) -> Path:
    return path.with_suffix(".json")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """write(file) into a temporary file beside `path`, flushed to disk, then renamed over it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def save(V: np.ndarray, path: Path | None = None, info: dict | None = None) -> Path:
    """Write the table (float32: 12 MB, values to about 1e-5) and, beside it, a JSON sidecar
    with its SHA-256 and `info` (how long the build took, the game's value in full
    precision). Both are written under a temporary name, then renamed."""
    path = path or cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(path, lambda f: np.save(f, V.astype(np.float32), allow_pickle=False))
    side = dict(info or {}, sha256=_sha256(path), bytes=path.stat().st_size)
    _write_atomically(_sidecar(path), lambda f: f.write(json.dumps(side, indent=1).encode()))
    return path


def build_info(path: Path | None = None) -> dict | None:
    """The sidecar's `info` (without the checksum), or None."""
    try:
        info = json.loads(_sidecar(path or cache_path()).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict):
        return None
    return {k: v for k, v in info.items() if k not in ("sha256", "bytes")}


def load_checked(path: Path | None = None) -> tuple[np.ndarray | None, str | None]:
    """(the cached table, None), or (None, why not): "missing" when it was never built, else
    a sentence saying how the file is damaged. A damaged table is never returned."""
    path = path or cache_path()
    if not path.exists():
        return None, "missing"
    try:
        side = json.loads(_sidecar(path).read_text())
        expected = side["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, f"{path.name} has no valid checksum beside it"
    try:
        if _sha256(path) != expected:
            return None, f"{path.name} does not match its checksum (damaged or truncated)"
        V = np.load(path, allow_pickle=False)
    except Exception as exc:  # an empty file: EOFError; a file of another kind: ValueError
        return None, f"{path.name} could not be read ({type(exc).__name__}: {exc})"
    if (
        not isinstance(V, np.ndarray)
        or V.shape != (N_UPPER, N_LOWER)
        or not np.isfinite(V[:, L_REACHABLE]).all()
    ):
        return None, f"{path.name} does not hold a whole table"
    V = V.astype(np.float64)
    problem = wrong_values(V)
    if problem is not None:
        return None, f"{path.name} {problem}"
    return V, None


def wrong_values(V: np.ndarray, checks: int = SPOT_CHECKS) -> str | None:
    """What is wrong with the values of a whole table, in words, or None. The states checked
    are drawn afresh each time, so a forger cannot know which ones to leave alone."""
    from .states import lower_index, upper_index

    start = float(V[upper_index(0, 0), lower_index(0, False)])
    if abs(start - GAME_VALUE) > 1e-3:
        return f"gives the game a value of {start:.4f}, not {GAME_VALUE:.4f}"
    if (V[:, L_REACHABLE] < 0).any():
        return "holds negative values"
    rng = np.random.default_rng()
    for level in range(14, -1, -1):
        u, l = random_states(level, checks, rng)
        # float32 on disk keeps values to about 1e-5; a real difference is far larger.
        if np.abs(state_values(V, u, l) - V[u, l]).max() > 1e-2:
            return f"holds values that one turn from the next level does not give (level {level})"
    return None


def random_states(
    level: int, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """`count` reachable states with `level` boxes filled, drawn uniformly (with repeats)
    without listing them all as level_states does (which takes far longer than the check)."""
    from .states import L_FILLED, N_LOWER_BOXES, U_FILLED

    blocks = [
        (
            np.flatnonzero(U_FILLED == upper),
            np.flatnonzero((L_FILLED == level - upper) & L_REACHABLE),
        )
        for upper in range(7)
        if 0 <= level - upper <= N_LOWER_BOXES
    ]
    sizes = np.array([len(us) * len(ls) for us, ls in blocks], dtype=np.float64)
    which = rng.choice(len(blocks), size=count, p=sizes / sizes.sum())
    u = np.empty(count, dtype=np.int64)
    l = np.empty(count, dtype=np.int64)
    for index, (us, ls) in enumerate(blocks):
        here = which == index
        u[here] = rng.choice(us, size=int(here.sum()))
        l[here] = rng.choice(ls, size=int(here.sum()))
    return u, l


def load(path: Path | None = None) -> np.ndarray | None:
    """The cached table, or None when it has not been built (or the file is damaged)."""
    return load_checked(path)[0]


@contextmanager
def locked(path: Path | None = None, on_wait: Callable[[], object] | None = None) -> Iterator[None]:
    """Hold the build lock of the table at `path` (a lock file beside it) while inside; if
    another process holds it, call on_wait() once and wait. Without fcntl (Windows) no lock
    is taken: the rename still keeps every reader safe, two builders just both work."""
    path = path or cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path.with_suffix(".lock"), "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait:
                on_wait()
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def build_and_save(
    progress: Progress | None = None, path: Path | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    from .states import lower_index, upper_index

    started = time.monotonic()
    V = build(progress=progress)
    info = {
        "build_seconds": round(time.monotonic() - started, 1),
        "game_value": float(V[upper_index(0, 0), lower_index(0, False)]),
        "format": FORMAT_VERSION,
        "rules": rules_fingerprint(),
    }
    save(V, path=path, info=info)
    return V, info


def ensure_built(
    progress: Progress | None = None,
    on_wait: Callable[[], object] | None = None,
    on_damaged: Callable[[str], object] | None = None,
    path: Path | None = None,
) -> np.ndarray:
    """The table at `path`: loaded if it is cached and sound, else built and saved, under the
    lock, so two programs building at once do the work once. on_damaged(why) is called when
    a damaged file is found (it is then rebuilt)."""
    path = path or cache_path()
    V, problem = load_checked(path)
    if V is not None:
        return V
    with locked(path, on_wait=on_wait):
        V, problem = load_checked(path)  # another builder may have finished meanwhile
        if V is not None:
            return V
        if problem != "missing":
            if on_damaged and problem is not None:  # (no table comes with its reason)
                on_damaged(problem)
            set_aside(path)
        V, _ = build_and_save(progress=progress, path=path)
        return V


def set_aside(path: Path) -> None:
    """Rename a refused table and its sidecar to NAME.damaged (the newest is kept), so it is
    neither used nor lost before someone has looked."""
    for refused in (path, _sidecar(path)):
        try:
            os.replace(refused, refused.with_name(refused.name + ".damaged"))
        except OSError:
            pass  # gone already, or a read-only folder: the build's rename replaces it anyway
