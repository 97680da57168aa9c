"""How fast the rules engines play and replay: prints figures, the median of several runs.

    python benchmarks/engine.py [--seats 4] [--runs 5] [--seconds 1.0] [--events 10000]

For every ruleset whose module imports (dice, and race and knock once they exist):
1. Random legal games per second: whole games played by `random_playout` (which asks every
   seat's `legal_actions` before each move, so this is the speed of a random bot's game, not
   of `apply` alone), default options, `--seats` seats. A run plays games for about
   `--seconds`; a game cut at MAX_STEPS events counts as unfinished, so events per second are
   printed too. Knock's random players knock rarely (PLAYOUT_STYLE).
2. Replay of a log of at least `--events` events: logs of whole games are recorded first, one
   game after another, until they hold that many events; a run then rebuilds every one of
   those games from its header with `kismet_tui.rules.replay` (so `apply` and the roll-off or
   deal of each new game) and takes each final digest. A single dice game has a few hundred
   events, so "a 10,000-event log" is a concatenation of whole games' logs.
   The same games are replayed twice in each run, alternately: from the seeded stream (a
   version-1 header with its seed) and with revealed chance (a version-2 header and events
   carrying the values each drew, through a RevealedRNG, as every client now replays). The
   ratio of the two, in the same run, is the cost of protocol version 2's replay. Replays
   are timed in CPU time (time.process_time), the other figures on the wall clock.
Not a test: pytest does not collect benchmarks/.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import statistics
import time
import timeit

from kismet_tui.rules import RULESETS, SeededRNG, game_from_header, new_game, replay
from kismet_tui.rules.playout import random_playout

MAX_STEPS = 2_000  # a random game longer than this is cut and counted as unfinished

# How each game's random players choose. Uniform choice suits dice and race; in knock it means
# every watcher knocks on nearly every roll, wrong knocks undo lays faster than lays are made,
# and no game of 3 or more seats ever ends. A knock weighing 1 against 24 for any other move
# plays games that end at every table size up to 8.
PLAYOUT_STYLE = {"knock": {"weights": {"knock": 1}, "default_weight": 24}}


def available_rulesets() -> list[str]:
    found = []
    for name, module in RULESETS.items():
        try:
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
                found.append(name)
        except ImportError:
            pass
    return found


def play_games(
    ruleset: str, seats: int, budget: float, first_seed: int
) -> tuple[float, int, int, int]:
    """Play random games one after another for about `budget` seconds;
    (seconds, events, finished games, unfinished games)."""
    events = finished = unfinished = 0
    seed = first_seed
    start = time.perf_counter()
    while time.perf_counter() - start < budget:
        game = new_game(ruleset, seats, seed)
        events += len(
            random_playout(
                game, SeededRNG(seed), max_steps=MAX_STEPS, **PLAYOUT_STYLE.get(ruleset, {})
            )
        )
        finished += game.finished
        unfinished += not game.finished
        seed += 1
    return time.perf_counter() - start, events, finished, unfinished


def record_logs(ruleset: str, seats: int, events: int) -> list[tuple[dict, list, str]]:
    """Whole games' (header, log, final digest), until the logs hold at least `events`."""
    logs, total, seed = [], 0, 10_000
    while total < events:
        game = new_game(ruleset, seats, seed, start_ms=1000)
        log = random_playout(
            game, SeededRNG(seed), max_steps=MAX_STEPS, **PLAYOUT_STYLE.get(ruleset, {})
        )
        header = {"ruleset": ruleset, "seats": seats, "seed": seed, "options": {}, "t0": 1000}
        logs.append((header, log, game.digest()))
        total += len(log)
        seed += 1
    return logs


def revealed(header: dict, log: list) -> tuple[dict, list]:
    """The same game as a version-2 log: each event carries the values it drew (recorded as
    the host does, by replaying with the stream), the header its creation draws, no seed."""
    game = game_from_header(header)
    events = []
    creation = game.rng.take_drawn()
    for event in log:
        game.apply(event["seat"], event["action"], event["t"])
        chance = game.rng.take_drawn()
        events.append({**event, "chance": chance} if chance else dict(event))
    v2 = {key: value for key, value in header.items() if key != "seed"}
    v2.update(commit="0" * 64, entropy=[None] * header["seats"], chance=creation)
    return v2, events


def replay_all(logs) -> float:
    # CPU time of this process: on a shared machine, time spent descheduled is not the
    # replay's (the wall clock counted it and moved the ratio by 20% between runs).
    start = time.process_time()
    for header, log, digest in logs:
        if replay(header, log).digest() != digest:
            raise SystemExit(f"replay of {header} reached another state: the engine is broken")
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="play time of a run")
    parser.add_argument("--events", type=int, default=10_000, help="events in the replay log")
    args = parser.parse_args()
    rulesets = available_rulesets()
    print(
        f"Engine benchmark: Python {platform.python_version()}, {args.seats} seats, "
        f"default options; median of {args.runs} runs"
    )
    # A yardstick for reading the figures on a shared or busy machine (idle, recent x86:
    # well under 1 us).
    yardstick = min(timeit.repeat("sum(range(100))", number=20_000, repeat=5)) / 20_000
    print(f"Machine yardstick: sum(range(100)) takes {yardstick * 1e6:.2f} us")

    print(f"\nRandom legal games (random_playout, games played for {args.seconds} s a run):")
    for ruleset in rulesets:
        runs = [
            play_games(ruleset, args.seats, args.seconds, 1 + run * 1000)
            for run in range(args.runs)
        ]
        games = statistics.median(r[2] / r[0] for r in runs)
        events = statistics.median(r[1] / r[0] for r in runs)
        played = sum(r[2] + r[3] for r in runs)
        unfinished = sum(r[3] for r in runs)
        note = (
            f"; {unfinished} of {played} games unfinished after {MAX_STEPS:,} events"
            if unfinished
            else f"; {played} games"
        )
        print(f"  {ruleset:6} {games:9.1f} games/s   ({events:9,.0f} events/s{note})")

    print(
        f"\nReplay of a log of at least {args.events:,} events "
        "(whole games one after another, each rebuilt from its header, digest checked):"
    )
    for ruleset in rulesets:
        logs = record_logs(ruleset, args.seats, args.events)
        total = sum(len(log) for _, log, _ in logs)
        cut = sum(len(log) >= MAX_STEPS for _, log, _ in logs)
        what = f"{len(logs)} games" + (f", {cut} cut at {MAX_STEPS:,} events" if cut else "")
        chance_logs = [(*revealed(header, log), digest) for header, log, digest in logs]
        seeded_runs, revealed_runs = [], []
        for _ in range(args.runs):  # alternately, so both see the same machine load
            seeded_runs.append(replay_all(logs))
            revealed_runs.append(replay_all(chance_logs))
        for label, runs in (("seeded stream", seeded_runs), ("revealed chance", revealed_runs)):
            seconds = statistics.median(runs)
            print(
                f"  {ruleset:6} {label:15} {total:,} events in {what}: {seconds * 1000:8.1f} ms   "
                f"({total / seconds:9,.0f} events/s; {seconds * 1e4 / total * 1000:.1f} ms "
                "per 10,000 events)"
            )
        ratio = statistics.median(r / s for r, s in zip(revealed_runs, seeded_runs))
        best = min(revealed_runs) / min(seeded_runs)
        print(
            f"  {ruleset:6} revealed / seeded: {ratio:.3f} (median of the per-run ratios; "
            f"{best:.3f} best against best)"
        )


if __name__ == "__main__":
    main()
