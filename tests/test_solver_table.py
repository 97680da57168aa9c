"""The whole optimal table (built once per session, tests/conftest.py optimal_cache): its
value, a simulated sample against it, the fast build against the first algorithm, the cache
file's checks (damage is found and never used), and builders that run at once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from kismet_tui.bots import advisor, dice_levels
from kismet_tui.bots.dice_levels import DicePolicy
from kismet_tui.rules import new_game
from kismet_tui.solver import background, simulate, table
from kismet_tui.solver.states import N_LOWER, N_UPPER, level_states, lower_index, upper_index
from kismet_tui.solver.turn import state_values
from tests import solver_standin

START = upper_index(0, 0), lower_index(0, False)


def test_the_whole_table_is_worth_315_1040_and_a_simulated_sample_agrees(optimal_cache):
    path, V = optimal_cache
    assert round(float(V[START]), 4) == 315.1040
    assert round(table.build_info(path)["game_value"], 4) == 315.1040
    loaded = table.load(path)
    assert loaded is not None and abs(loaded[START] - V[START]) < 1e-4
    # 3000 games played by the table's own policy: their mean is the table's value.
    points = simulate.play(V, 3000, seed=11, upper=START[0], lower=START[1])
    half_width = 4 * points.std() / np.sqrt(len(points))
    assert abs(points.mean() - V[START]) < half_width


@pytest.mark.parametrize("level", [13, 10, 7, 4, 1, 0])
def test_fast_build_agrees_with_the_first_algorithm_at_every_depth(optimal_cache, level):
    # The first algorithm (turn.state_values) recomputes sampled states of a level from the
    # fast build's values of the level after: the same to 1e-9.
    _, V = optimal_cache
    u, l = level_states(level)
    pick = np.random.default_rng(level).choice(len(u), size=min(len(u), 1500), replace=False)
    assert np.abs(state_values(V, u[pick], l[pick]) - V[u[pick], l[pick]]).max() < 1e-9


def test_fast_build_equals_the_reference_build_on_the_last_levels():
    levels = [14, 13, 12]
    fast = table.build(levels=levels)
    reference = table.build_reference(levels=levels)
    assert np.abs(fast - reference).max() < 1e-9
    assert np.count_nonzero(reference) > 50_000  # the levels were really solved


def test_hard_bot_and_hints_are_exact_with_the_cached_table(optimal_cache, monkeypatch):
    path, _ = optimal_cache
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(path.parent))
    game = new_game("dice", 1, 5)
    policy = DicePolicy("hard", 0, 5)
    policy.decide(game, 0, 0)
    assert policy.exact is True
    game.apply(0, {"type": "roll", "hold": []}, 1)
    assert advisor.advise(game, 0)[0]["exact"] is True


# ---- the cache file ----------------------------------------------------------------------


@pytest.fixture
def saved(optimal_cache, tmp_path):
    """A sound table file (the session's table) in a cache folder of its own."""
    path = tmp_path / "table.npy"
    table.save(optimal_cache[1], path=path, info={"build_seconds": 1.0})
    return path


def tampered(V, how):
    """The table `V` rewritten as a forger (or a bad build) might, sidecar and all."""
    V = V.copy()
    if how == "negated":
        return -V
    if how == "zeros":
        return np.zeros_like(V)
    if how == "start nudged":
        V[START] += 0.5
    elif how == "a level scaled":
        u, l = level_states(7)
        V[u, l] *= 0.97
    elif how == "one negative":
        u, l = level_states(13)
        V[u[0], l[0]] = -1.0
    return V


@pytest.mark.parametrize(
    "how, words",
    [
        ("negated", "gives the game a value of -315.1040, not 315.1040"),
        ("zeros", "gives the game a value of 0.0000, not 315.1040"),
        ("start nudged", "gives the game a value of 315.6040, not 315.1040"),
        (
            "a level scaled",
            "holds values that one turn from the next level does not give (level 7)",
        ),
        ("one negative", "holds negative values"),
    ],
)
def test_a_table_rewritten_with_a_matching_sidecar_is_refused(optimal_cache, tmp_path, how, words):
    path = tmp_path / "table.npy"
    table.save(tampered(optimal_cache[1], how), path=path)
    assert table.load_checked(path) == (None, f"table.npy {words}")


def test_an_empty_table_file_with_a_matching_sidecar_is_refused_in_words(tmp_path):
    import hashlib
    import json

    path = tmp_path / "table.npy"
    path.write_bytes(b"")
    path.with_suffix(".json").write_text(json.dumps({"sha256": hashlib.sha256(b"").hexdigest()}))
    assert table.load_checked(path) == (
        None,
        "table.npy could not be read (EOFError: No data left in file)",
    )


def test_a_refused_table_is_set_aside_said_and_built_again(optimal_cache, tmp_path):
    """A negated table with its sidecar rewritten, found by the real background build (the
    child process that builds, as the app and the host start it, on a small table:
    tests/solver_standin.py): it says why, the status bar says the table is rebuilt, the file
    is set aside and the new table is sound."""
    source, V = optimal_cache
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / source.name
    table.save(-V, path=path)
    said = []
    build = background.Build(path, command=solver_standin.command(source))
    stop = background.listen(lambda: said.append(build.words()))
    try:
        build.start()
        assert build.done.wait(280), "the background build never finished"
    finally:
        stop()
    assert build.state == "ready", build.error
    assert build.damaged == f"{path.name} gives the game a value of -315.1040, not 315.1040"
    assert any(words.startswith("Rebuilding the damaged dice table") for words in said), said
    assert np.abs(build.V - V).max() < 1e-4
    assert table.load_checked(path)[1] is None
    aside = np.load(cache / (path.name + ".damaged"))
    assert aside[START] == pytest.approx(-315.104, abs=1e-3)
    assert (cache / (path.with_suffix(".json").name + ".damaged")).exists()


def test_a_sound_file_loads_and_no_temporary_file_is_left(saved):
    V, problem = table.load_checked(saved)
    assert problem is None and V.shape == (N_UPPER, N_LOWER)
    assert table.build_info(saved) == {"build_seconds": 1.0}
    assert sorted(p.name for p in saved.parent.iterdir()) == ["table.json", "table.npy"]


@pytest.mark.parametrize("damage", ["truncate", "flip", "no_sidecar", "garbage"])
def test_a_damaged_file_is_found_and_never_used(saved, damage):
    data = saved.read_bytes()
    if damage == "truncate":
        saved.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        at = len(data) - 1000  # inside the values: np.load alone would not notice
        saved.write_bytes(data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1 :])
    elif damage == "no_sidecar":
        saved.with_suffix(".json").unlink()
    else:
        saved.write_bytes(b"not a table")
    V, problem = table.load_checked(saved)
    assert V is None and problem != "missing"
    assert "checksum" in problem
    assert table.load(saved) is None


def test_a_missing_file_is_missing(tmp_path):
    assert table.load_checked(tmp_path / "none.npy") == (None, "missing")


def test_two_builders_at_once_build_once_and_repair_a_damaged_file(optimal_cache, tmp_path):
    """A truncated cache file and two builders started together: the background build of
    this process and a second program (both the real child on a small table:
    tests/solver_standin.py). One of them says the file is damaged and builds; the other
    waits and loads; the file ends sound, with the same table."""
    source, V = optimal_cache
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / source.name
    shutil.copy(source.with_suffix(".json"), path.with_suffix(".json"))
    path.write_bytes(source.read_bytes()[:100_000])  # truncated
    mine = background.Build(path, command=solver_standin.command(source)).start()
    other = subprocess.run(
        solver_standin.command(source),
        capture_output=True,
        text=True,
        timeout=280,
        env=_env_with_cache(cache),
    )
    assert mine.done.wait(280), "the background build never finished"
    assert other.returncode == 0, other.stderr
    assert mine.state == "ready", mine.error
    other_lines = [line.split()[0] for line in other.stdout.splitlines()]
    assert other_lines[-1] == "ready"
    other_built = "progress" in other_lines
    mine_built = mine.damaged is not None
    assert other_built != mine_built  # exactly one of them built
    if other_built:
        assert "damaged" in other_lines
    loaded = table.load(path)
    assert loaded is not None and np.abs(loaded - V).max() < 1e-4
    assert np.abs(mine.V - V).max() < 1e-4
    # No temporary file left; the truncated file is set aside.
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == sorted(
        [
            path.name,
            path.with_suffix(".json").name,
            path.name + ".damaged",
            path.with_suffix(".json").name + ".damaged",
        ]
    )


def _env_with_cache(cache):
    import os

    return dict(os.environ, KISMET_SOLVER_CACHE=str(cache))


def test_a_failed_background_build_says_so_and_the_bot_plays_on(tmp_path, monkeypatch):
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(tmp_path))
    monkeypatch.setenv(background.AUTOBUILD_ENV, "1")
    monkeypatch.setattr(
        background,
        "build_command",
        lambda: [sys.executable, "-c", "import sys; sys.exit('no room on the disk')"],
    )
    assert dice_levels.optimal_table() is None
    build = background.current(table.cache_path())
    assert build is not None and build.done.wait(60)
    assert build.state == "failed" and "no room on the disk" in build.error
    assert dice_levels.optimal_table() is None  # and no second build is started
    assert background.current(table.cache_path()) is build
    policy = DicePolicy("hard", 0, 1)
    policy.decide(new_game("dice", 1, 1), 0, 0)
    assert policy.exact is False
    assert background.status_words() == "The perfect dice bot could not be prepared"


@pytest.mark.network
@pytest.mark.timeout(120)
async def test_a_host_starts_the_build_when_it_seats_a_hard_dice_bot(
    optimal_cache, tmp_path, monkeypatch
):
    # The build's child is a stand-in that puts the session's table in place (the real child
    # is tested above): what matters here is that seating the bot starts it, and the bot
    # then plays from the table.
    from kismet_tui.bots.runner import bot_factory
    from tests.netutil import FAST, connected, running_host, wait_until

    source, _ = optimal_cache
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(cache))
    monkeypatch.setenv(background.AUTOBUILD_ENV, "1")
    stand_in = (
        "import shutil, sys; s, d = sys.argv[1:]; "
        "shutil.copy(s[:-4] + '.json', d[:-4] + '.json'); shutil.copy(s, d); print('ready', d)"
    )
    target = table.cache_path()
    monkeypatch.setattr(
        background,
        "build_command",
        lambda: [sys.executable, "-c", stand_in, str(source), str(target)],
    )
    async with running_host(tmp_path / "host", bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            assert background.current(target) is None
            await ana.create_table("dice", FAST["dice"], bots=["hard"])
            await wait_until(lambda: background.current(target) is not None, timeout=10)
            await wait_until(lambda: background.current(target).done.is_set(), timeout=60)
            assert background.current(target).state == "ready"
            await wait_until(lambda: dice_levels.optimal_table() is not None, timeout=10)
            assert dice_levels.optimal_table()[START] == pytest.approx(315.104, abs=1e-3)


def test_the_status_words_follow_the_build(tmp_path, monkeypatch):
    build = background.Build(tmp_path / "table.npy")  # not started: its fields set by hand
    monkeypatch.setitem(background._builds, "x", build)
    build._heard(["progress", "40 100"])
    assert background.status_words() == "Preparing the perfect dice bot: 40 %"
    assert background.status_words(short=True) == "Dice bot: 40 %"
    build._heard(["waiting"])
    assert (
        background.status_words() == "Preparing the perfect dice bot: waiting for another program"
    )
    build._heard(["damaged", "table.npy does not match its checksum"])
    build._heard(["progress", "7 10"])
    assert background.status_words() == "Rebuilding the damaged dice table: 70 %"
    build.state, build.finished_at = "ready", 100.0
    assert background.status_words(now=101.0) == "The perfect dice bot is ready"
    assert background.status_words(now=100.0 + background.READY_SHOWN_S + 1) is None


def test_a_build_tells_its_listeners_each_time_its_words_may_change(tmp_path, monkeypatch):
    """The app redraws the build's progress when told, never by asking on a timer: every
    step that changes status_words() calls the listeners, and a stopped listener hears no more."""
    build = background.Build(tmp_path / "table.npy")
    monkeypatch.setitem(background._builds, "x", build)
    heard: list[str | None] = []
    stop = background.listen(lambda: heard.append(background.status_words()))
    try:
        build._heard(["progress", "40 100"])
        build._heard(["waiting"])
        build._heard(["something else"])  # not news: nobody is told
        build._fail("the disk is full")
        assert heard == [
            "Preparing the perfect dice bot: 40 %",
            "Preparing the perfect dice bot: waiting for another program",
            "The perfect dice bot could not be prepared",
        ]
        # The words of a finished build end by themselves: the listener is told how soon.
        left = background.status_shown_for(now=build.finished_at + 1)
        assert left == pytest.approx(background.FAILED_SHOWN_S - 1)
        assert (
            background.status_shown_for(now=build.finished_at + background.FAILED_SHOWN_S + 1)
            is None
        )
    finally:
        stop()
    build._heard(["progress", "50 100"])
    assert len(heard) == 3, "a stopped listener hears nothing more"


def test_the_solver_command_prints_its_help_instead_of_building(tmp_path):
    """Issue 21 point 9: `python -m kismet_tui.solver --help` built the table (minutes of CPU)."""
    env = dict(os.environ, KISMET_SOLVER_CACHE=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "kismet_tui.solver", "--help"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "usage: python -m kismet_tui.solver" in done.stdout and "--rebuild" in done.stdout
    assert list(tmp_path.iterdir()) == [], "nothing built, nothing cached"
