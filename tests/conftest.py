"""Every test runs as a brand-new user: the per-user folders point at a fresh temporary folder.

The app keeps the optimal dice table in the user's cache folder and rejoin tokens in the
state folder (platformdirs, which reads HOME and the XDG_* variables each time it is asked).
A test that passed only because this machine had built the table by hand would be red on
the next machine, so the whole session gets a HOME of its own, empty XDG folders and no
KISMET_* overrides from the caller's shell. Subprocesses (`python -m server.cli`) inherit it.

No test multicasts off the machine: every zeroconf a test makes must be bound to loopback
(`interfaces=["127.0.0.1"]`), or the test fails before a socket is opened.
"""

from __future__ import annotations

import os

import pytest

USER_FOLDERS = {
    "XDG_CACHE_HOME": "cache",
    "XDG_STATE_HOME": "state",
    "XDG_CONFIG_HOME": "config",
    "XDG_DATA_HOME": "data",
    "XDG_RUNTIME_DIR": "runtime",
}


@pytest.fixture(scope="session", autouse=True)
def fresh_user_folders(tmp_path_factory):
    """Point HOME and every XDG_* folder at an empty folder for the whole test session."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        for name, sub in USER_FOLDERS.items():
            folder = home / sub
            folder.mkdir(mode=0o700)
            mp.setenv(name, str(folder))
        for name in ("XDG_CONFIG_DIRS", "XDG_DATA_DIRS"):
            mp.delenv(name, raising=False)
        for name in [n for n in os.environ if n.startswith("KISMET_")]:
            mp.delenv(name)
        # The commands draw in ASCII when the locale has no UTF-8: pin one that has it, so
        # the pictures do not depend on the machine's LANG (a test of LANG=C sets its own).
        mp.setenv("LANG", "C.UTF-8")
        for name in ("LC_ALL", "LC_CTYPE"):
            mp.delenv(name, raising=False)
        # Colour or not is the caller's terminal too: the pictures are of a colour terminal
        # (a test of NO_COLOR or TERM=xterm-mono sets its own).
        mp.delenv("NO_COLOR", raising=False)
        if os.environ.get("TERM", "").endswith(("-mono", "-m")):
            mp.setenv("TERM", "xterm-256color")
        # No test starts a background build of the optimal table unless it asks for one
        # (tests/test_solver_table.py does, in a cache of its own).
        mp.setenv("KISMET_SOLVER_AUTOBUILD", "0")
        yield home


@pytest.fixture(autouse=True)
def no_optimal_table_loaded(monkeypatch):
    """The hard bot caches the optimal table per process: each test starts without one, as a
    new user does, whatever an earlier test loaded or built in the background."""
    from kismet_tui.bots import dice_levels
    from kismet_tui.solver import background

    monkeypatch.setattr(dice_levels, "_optimal", None)
    monkeypatch.setattr(background, "_builds", {})


@pytest.fixture(scope="session")
def optimal_cache(tmp_path_factory):
    """The whole optimal table, built once per test session (some seconds) into a cache
    folder of its own: (path of the cached file, the table as built, in float64). Tests that
    use it point KISMET_SOLVER_CACHE at path.parent themselves. The parallel workers (pytest
    -n) share the folder: the first builds it, the others wait for the table's lock and load
    it, in float64 as built (the cache file holds float32), instead of each building it again."""
    import numpy as np

    from kismet_tui.solver import table

    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "solver-cache"  # the session's, shared
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("solver-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KISMET_SOLVER_CACHE", str(folder))
        path = table.cache_path()
        exact = folder / "as-built.npy"
        with table.locked(path):
            if exact.exists():
                return path, np.load(exact)
            V, _ = table.build_and_save(path=path)
            np.save(folder / "as-built.tmp.npy", V)
            os.replace(folder / "as-built.tmp.npy", exact)
    return path, V


@pytest.fixture(autouse=True)
def unicode_drawing():
    """The drawing mode is one switch for the process (glyphs.use_ascii, set by the commands'
    --ascii or by the locale): each test starts with Unicode and leaves it so, whatever a
    command it ran chose."""
    from kismet_tui.widgets import glyphs

    glyphs.use_ascii(False)
    yield
    glyphs.use_ascii(False)


@pytest.fixture(autouse=True)
def zeroconf_on_loopback_only(monkeypatch):
    """A zeroconf made in a test process on any interface but loopback fails the test at
    once, before it opens a socket (tests/test_discovery.py checks its subprocesses)."""
    from zeroconf import Zeroconf

    opened = Zeroconf.__init__

    def on_loopback(self, *args, **kwargs):
        interfaces = kwargs.get("interfaces", args[0] if args else None)
        if not (
            isinstance(interfaces, list)
            and interfaces
            and all(str(address).startswith("127.") for address in interfaces)
        ):
            raise AssertionError(
                f"a test's zeroconf must be bound to 127.0.0.1, not {interfaces!r}"
            )
        opened(self, *args, **kwargs)

    monkeypatch.setattr(Zeroconf, "__init__", on_loopback)
