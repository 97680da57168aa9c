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
truncated table is detected and never used (load_checked says why). Writers take a lock file
(ensure_built: the second builder waits, then finds the table built) and write under a
temporary name, then rename, so a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .space import rules_fingerprint
from .states import L_REACHABLE, N_LOWER, N_UPPER, level_states
from .turn import state_values

# 2: the sidecar holds the table's checksum (a version 1 file, without one, is not used).
FORMAT_VERSION = 2
BATCH = 8192  # states per batch of build_reference


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
    as batches finish. Passing a V filled for higher levels lets tests solve a few levels."""
    from . import fast

    return fast.build(progress=progress, levels=levels, V=V)


def build_reference(progress=None, levels=range(14, -1, -1), V: np.ndarray | None = None) -> np.ndarray:
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
            u, l = u_all[start:start + BATCH], l_all[start:start + BATCH]
            values[start:start + BATCH] = state_values(V, u, l)
            done += len(u)
            if progress:
                progress(done, total)
        V[u_all, l_all] = values
    return V


def text_progress(stream=sys.stderr):
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
        stream.write(f"\rBuilding the Kismet table [{'#' * filled}{'.' * (width - filled)}] "
                     f"{percent:3d}%  {elapsed:5.0f}s, about {eta:4.0f}s left ")
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


def _write_atomically(path: Path, write) -> None:
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
    except (OSError, ValueError) as exc:
        return None, f"{path.name} could not be read ({exc})"
    if V.shape != (N_UPPER, N_LOWER) or not np.isfinite(V[:, L_REACHABLE]).all():
        return None, f"{path.name} does not hold a whole table"
    return V.astype(np.float64), None


def load(path: Path | None = None) -> np.ndarray | None:
    """The cached table, or None when it has not been built (or the file is damaged)."""
    return load_checked(path)[0]


@contextmanager
def locked(path: Path | None = None, on_wait=None):
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


def build_and_save(progress=None, path: Path | None = None) -> tuple[np.ndarray, dict]:
    from .states import lower_index, upper_index

    started = time.monotonic()
    V = build(progress=progress)
    info = {"build_seconds": round(time.monotonic() - started, 1),
            "game_value": float(V[upper_index(0, 0), lower_index(0, False)]),
            "format": FORMAT_VERSION, "rules": rules_fingerprint()}
    save(V, path=path, info=info)
    return V, info


def ensure_built(progress=None, on_wait=None, on_damaged=None, path: Path | None = None) -> np.ndarray:
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
        if problem != "missing" and on_damaged:
            on_damaged(problem)
        V, _ = build_and_save(progress=progress, path=path)
        return V
