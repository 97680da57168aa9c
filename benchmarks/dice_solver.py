"""Benchmark of the optimal dice solver and the dice bot levels. Prints figures; asserts nothing.

    python benchmarks/dice_solver.py [--rebuild] [--games 20000] [--engine-games 300]

- the time to build the optimal table (measured now with --rebuild, else the time recorded
  when the cached table was built) and the time to load it (median of 5);
- the optimal expected score of a solitaire game of Kismet (the table's value at the start);
- the mean of --games solitaire games played by the optimal policy in the solver's own
  vectorised model (kismet_tui.solver.simulate), with its 95% interval;
- the same policy (the hard bot) through the real engine (kismet_tui.rules.dice) for a
  sample, which checks the solver's model of the rules against the engine's;
- the time of one decision (median), and the mean of each weaker level through the engine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from kismet_tui.bots import arena, dice_levels  # noqa: E402
from kismet_tui.bots.dice_levels import DicePolicy  # noqa: E402
from kismet_tui.rules import new_game  # noqa: E402
from kismet_tui.solver import advice, simulate, table  # noqa: E402
from kismet_tui.solver.states import lower_index, upper_index  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rebuild", action="store_true", help="build the table again and time it")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--engine-games", type=int, default=300)
    args = parser.parse_args()

    if args.rebuild or table.load() is None:
        _, info = table.build_and_save(progress=table.text_progress())
        print(f"Build time:            {info['build_seconds']:.1f} s (measured now)")
    else:
        info = table.build_info() or {}
        seconds = info.get("build_seconds")
        told = f"{seconds} s (recorded when the cache was built)" if seconds else "not recorded"
        print(f"Build time:            {told}; --rebuild to measure it now")
    loads = []
    for _ in range(5):
        started = time.perf_counter()
        V = table.load()
        loads.append(time.perf_counter() - started)
    print(f"Load time:             {statistics.median(loads) * 1000:.0f} ms (median of 5), {table.cache_path()}")
    start_u, start_l = upper_index(0, 0), lower_index(0, False)
    value = info.get("game_value", float(V[start_u, start_l]))
    print(f"Optimal expected score of solitaire Kismet: {value:.4f}")

    started = time.perf_counter()
    sims = simulate.play(V, args.games, seed=2026, upper=start_u, lower=start_l)
    seconds = time.perf_counter() - started
    print(f"Optimal policy, solver model:  {interval(sims)}  [{seconds:.0f} s]")
    half = 1.96 * sims.std(ddof=1) / np.sqrt(len(sims))
    print(f"   the table's value is {'INSIDE' if abs(sims.mean() - value) <= half else 'OUTSIDE'} that interval")

    times = decision_times(V)
    print(f"Decision time:         {statistics.median(times) * 1000:.2f} ms median, "
          f"{max(times) * 1000:.2f} ms worst of {len(times)}")

    dice_levels._optimal = V
    hard = engine_games("hard", args.engine_games, 10_000)
    print(f"hard (optimal), real engine:   {interval(hard)}")
    dice_levels._optimal = None
    dice_levels._optimal_missing_warned = True
    real_load = dice_levels.table.load
    dice_levels.table.load = lambda *a, **k: None  # as if the table were not built
    try:
        print(f"hard without table (heuristic): {interval(engine_games('hard', args.engine_games, 20_000))}")
        print(f"medium, real engine:           {interval(engine_games('medium', args.engine_games, 30_000))}")
    finally:
        dice_levels.table.load = real_load
    print(f"easy (greedy), real engine:    {interval(engine_games('easy', max(args.engine_games, 2000), 40_000))}")


if __name__ == "__main__":
    main()
