"""How long the dice review of a whole game takes, with the optimal table built: prints
figures, the median of several runs.

    python benchmarks/review.py [--runs 7]

The table is loaded from this user's cache (built first, with a progress line, if it is not
there: about 10 s, once; KISMET_SOLVER_CACHE points elsewhere). Games are played through the
engine by the bots' own policies (tests/review_util.py): a solo game of the medium bot, and a
game of four (hard, medium, easy, medium). Each run times `review_dice_game` on the whole log
(wall time, time.perf_counter, and CPU time), and the median is printed per game, with the
decisions it graded. Loading the table (checked: its checksum and spot checks) is timed apart:
a program that has it loaded already (the hard bot's, the hints') pays nothing for it. Not a
test: pytest does not collect benchmarks/.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kismet_tui.bots import dice_levels
from kismet_tui.review.dice import review_dice_game
from kismet_tui.solver import table
from tests.review_util import play_dice

GAMES = [
    ("solo, medium bot", ["medium"], 5),
    ("four seats: hard, medium, easy, medium", ["hard", "medium", "easy", "medium"], 6),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, {args.runs} runs each")
    started = time.perf_counter()
    V = table.ensure_built(progress=table.text_progress(sys.stderr))
    print(f"table ready in {time.perf_counter() - started:.2f} s ({table.cache_path()})")
    loads = []
    for _ in range(3):
        started = time.perf_counter()
        table.load_checked(table.cache_path())
        loads.append(time.perf_counter() - started)
    print(f"loading the table, checked: median {statistics.median(loads) * 1000:.0f} ms")
    dice_levels._optimal = V  # the hard bot plays from the same table
    for label, levels, seed in GAMES:
        header, events = play_dice(levels, seed)
        walls, cpus = [], []
        for _ in range(args.runs):
            wall, cpu = time.perf_counter(), time.process_time()
            review = review_dice_game(header, events, V)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        decisions = len(review.decisions())
        print(
            f"{label}: {len(events)} events, {decisions} decisions: median "
            f"{statistics.median(walls) * 1000:.0f} ms wall, {statistics.median(cpus) * 1000:.0f} ms CPU "
            f"({statistics.median(walls) / decisions * 1000:.2f} ms a decision)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
