"""Benchmark of the optimal dice solver and the dice bot levels. Prints figures; asserts nothing.

    python benchmarks/dice_solver.py [--runs 3] [--baseline-runs 1] [--no-baseline]
                                     [--games 20000] [--engine-games 300]

- the build of the whole table by the fast algorithm (solver/fast.py) and by the previous
  one (table.build_reference), each in a fresh child process so its peak memory is its own:
  wall time, CPU time (all threads) and peak memory (max RSS), medians of the runs, the
  ratios, and the largest difference between the two tables (float64, before saving);
- the time to load the cached table (median of 5), building it first if it is missing;
- the optimal expected score of a solitaire game of Kismet (the table's value at the start);
- the mean of --games solitaire games played by the optimal policy in the solver's own
  vectorised model (kismet_tui.solver.simulate), with its 95% interval;
- the same policy (the hard bot) through the real engine (kismet_tui.rules.dice) for a
  sample, which checks the solver's model of the rules against the engine's;
- the time of one decision (median), and the mean of each weaker level through the engine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from kismet_tui.bots import arena, dice_levels
from kismet_tui.bots.dice_levels import DicePolicy
from kismet_tui.rules import new_game
from kismet_tui.solver import advice, simulate, table
from kismet_tui.solver.states import lower_index, upper_index


def interval(scores) -> str:
    scores = np.asarray(scores, dtype=float)
    half = 1.96 * scores.std(ddof=1) / np.sqrt(len(scores))
    return f"{scores.mean():8.2f}  95% interval [{scores.mean() - half:.2f}, {scores.mean() + half:.2f}]  (n={len(scores)}, sd {scores.std(ddof=1):.1f})"


def engine_games(level: str, games: int, seed0: int) -> list[int]:
    scores = []
    for g in range(games):
        game, _, refused = arena.play_local("dice", [DicePolicy(level, 0, seed0 + g)], seed0 + g)
        assert not refused, refused
        scores.append(game.result()["scores"][0])
    return scores


def decision_times(V, samples: int = 200) -> list[float]:
    """Time advice.choices on turn states met in real games (after the 1st, 2nd, 3rd roll)."""
    rng = np.random.default_rng(5)
    times = []
    game = new_game("dice", 1, 99)
    policy = DicePolicy("hard", 0, 99)
    while len(times) < samples:
        if game.finished:
            game = new_game("dice", 1, int(rng.integers(1 << 30)))
        view = game.view(0)
        started = time.perf_counter()
        advice.choices(V, view["cards"][0], list(view["dice"]), view["rolls_used"])
        times.append(time.perf_counter() - started)
        game.apply(0, policy.choose(view), game.now + 1)
    return times


def measure_build(algorithm: str, out: str) -> None:
    """In a child process: build the whole table by `algorithm`, save it (float64) to `out`,
    print the figures as JSON."""
    import resource

    build = {"fast": table.build, "reference": table.build_reference}[algorithm]
    wall, cpu = time.perf_counter(), time.process_time()
    V = build()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    np.save(out, V)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": cpu,
                "peak_mb": peak,
                "value": float(V[upper_index(0, 0), lower_index(0, False)]),
            }
        )
    )


def build_runs(algorithm: str, runs: int, folder: str) -> tuple[dict, np.ndarray]:
    figures = []
    out = os.path.join(folder, f"{algorithm}.npy")
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, __file__, "--measure", algorithm, out],
            capture_output=True,
            text=True,
            check=True,
        )
        figures.append(json.loads(done.stdout.strip().splitlines()[-1]))
    median = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
    return median, np.load(out)


def compare_builds(args) -> None:
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory() as folder:
        fast, V_fast = build_runs("fast", args.runs, folder)
        print(
            f"Build, fast algorithm:     {fast['wall']:6.1f} s wall  {fast['cpu']:6.1f} s CPU  "
            f"{fast['peak_mb']:5.0f} MB peak  (median of {args.runs}; {cores} cores)  value {fast['value']:.4f}"
        )
        if args.no_baseline:
            return
        ref, V_ref = build_runs("reference", args.baseline_runs, folder)
        print(
            f"Build, previous algorithm: {ref['wall']:6.1f} s wall  {ref['cpu']:6.1f} s CPU  "
            f"{ref['peak_mb']:5.0f} MB peak  (median of {args.baseline_runs})  value {ref['value']:.4f}"
        )
        print(
            f"   ratio previous / fast:  {ref['wall'] / fast['wall']:5.1f}x wall  "
            f"{ref['cpu'] / fast['cpu']:5.1f}x CPU"
        )
        print(f"   largest difference between the two tables: {np.abs(V_fast - V_ref).max():.1e}")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        measure_build(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3, help="fast builds to time (median)")
    parser.add_argument("--baseline-runs", type=int, default=1, help="previous-algorithm builds")
    parser.add_argument("--no-baseline", action="store_true", help="skip the previous algorithm")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--engine-games", type=int, default=300)
    args = parser.parse_args()

    compare_builds(args)
    table.ensure_built(progress=table.text_progress())
    info = table.build_info() or {}
    loads = []
    for _ in range(5):
        started = time.perf_counter()
        V = table.load()
        loads.append(time.perf_counter() - started)
    print(
        f"Load time:             {statistics.median(loads) * 1000:.0f} ms (median of 5), {table.cache_path()}"
    )
    start_u, start_l = upper_index(0, 0), lower_index(0, False)
    value = info.get("game_value", float(V[start_u, start_l]))
    print(f"Optimal expected score of solitaire Kismet: {value:.4f}")

    started = time.perf_counter()
    sims = simulate.play(V, args.games, seed=2026, upper=start_u, lower=start_l)
    seconds = time.perf_counter() - started
    print(f"Optimal policy, solver model:  {interval(sims)}  [{seconds:.0f} s]")
    half = 1.96 * sims.std(ddof=1) / np.sqrt(len(sims))
    print(
        f"   the table's value is {'INSIDE' if abs(sims.mean() - value) <= half else 'OUTSIDE'} that interval"
    )

    times = decision_times(V)
    print(
        f"Decision time:         {statistics.median(times) * 1000:.2f} ms median, "
        f"{max(times) * 1000:.2f} ms worst of {len(times)}"
    )

    dice_levels._optimal = V
    hard = engine_games("hard", args.engine_games, 10_000)
    print(f"hard (optimal), real engine:   {interval(hard)}")
    dice_levels._optimal = None
    dice_levels._optimal_missing_warned = True
    os.environ["KISMET_SOLVER_AUTOBUILD"] = "0"
    real_load = dice_levels.table.load_checked
    dice_levels.table.load_checked = lambda *a, **k: (None, "missing")  # as if not built
    try:
        print(
            f"hard without table (heuristic): {interval(engine_games('hard', args.engine_games, 20_000))}"
        )
        print(
            f"medium, real engine:           {interval(engine_games('medium', args.engine_games, 30_000))}"
        )
    finally:
        dice_levels.table.load_checked = real_load
    print(
        f"easy (greedy), real engine:    {interval(engine_games('easy', max(args.engine_games, 2000), 40_000))}"
    )


if __name__ == "__main__":
    main()
