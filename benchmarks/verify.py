"""How long `kismet-replay --verify` takes on a long race log: prints figures, the median of
several runs.

    python benchmarks/verify.py [--seats 8] [--runs 7] [--games 5]

A long race game (8 seats: 88 cards, the longest race game there is) is played by random
legal players (`random_playout`) drawing from a host's secret stream, and written the way the
host writes it: `server.store.GameWriter`, every event with the chance it drew, the end
record and the signature of a host identity made in a temporary folder. Then, per log, each
run times (CPU time, time.process_time):

- the whole of `--verify` (reading the file, `kismet_tui.log_check.check_log`);
- what `--verify` did before signing, the baseline: read the file, then the chance check
  (the engine's `verify`, which replays with the redrawn stream);
- the parts: reading and hashing the file, the signature, the events replayed through the
  engine with their revealed values, the chance check alone, and the end;

and prints the median per log, and the whole against the baseline as a ratio measured in the
same runs. Not a test: pytest does not collect benchmarks/.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kismet_tui.log_check import Built, Report, check_end, check_events, check_log, check_signed
from kismet_tui.rules import SeededRNG, new_game
from kismet_tui.rules.playout import random_playout
from kismet_tui.rules.verify import verify
from protocol.gamelog import read_game_log, read_log_full
from server.chance import GameSecret
from server.identity import HostIdentity
from server.store import GameWriter


def long_race_log(folder: Path, seats: int, number: int, identity: HostIdentity) -> Path:
    """One whole race game, as a host would have logged and signed it."""
    secret = GameSecret(bytes([number]) * 32)
    entropy = [bytes([seat]) * 16 for seat in range(seats)]
    names = [f"Player {seat + 1}" for seat in range(seats)]
    options = {"countdown_ms": 3000, "round_limit_ms": 10000, "reveal_ms": 2000}
    # The players' choices come from a stream of their own; the game's chance from the host's.
    players = SeededRNG(b"players" + bytes([number]))
    stream = secret.stream(entropy)
    game = new_game("race", names, None, options, rng=stream, start_ms=1_000)
    header = {
        "ruleset": "race",
        "seats": names,
        "options": options,
        "t0": 1_000,
        "commit": secret.commit,
        "version": secret.version,
        "entropy": entropy,
        "chance": stream.take_drawn(),
    }
    moves = random_playout(game, players)
    # The same game again, taking what each event drew, as the host's table does.
    stream = secret.stream(entropy)
    game = new_game("race", names, None, options, rng=stream, start_ms=1_000)
    stream.take_drawn()
    events = []
    for move in moves:
        game.apply(move["seat"], move["action"], move["t"])
        drawn = stream.take_drawn()
        events.append({**move, "chance": drawn} if drawn else dict(move))
    path = folder / f"race-{number}.kismet"
    writer = GameWriter(path, header, 1, events[:-1], identity=identity)
    writer.append(
        events[-1],
        end={"result": game.result(), "digest": game.digest(), "server_seed": secret.server_seed},
    )
    writer.close()
    return path


def timed(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def one_run(path: Path, known: dict[bytes, list[str]]) -> dict[str, float]:
    figures = {"whole --verify": timed(lambda: check_log(read_game_log(path), known=known))}
    log = read_game_log(path)
    seed = log.end["server_seed"] if log.end else None

    def before_signing() -> None:
        header, events, end = read_log_full(path)
        verify(header, events, (end or {}).get("server_seed"))

    figures["baseline (old --verify)"] = timed(before_signing)
    figures["read and hash"] = timed(lambda: read_game_log(path))
    figures["signature"] = timed(lambda: check_signed(log, Report(), None, known))
    game = None

    def events() -> None:
        nonlocal game
        game = check_events(log, Built(log), Report(), can_redraw=True)

    figures["events (built, engine replay)"] = timed(events)
    figures["chance"] = timed(lambda: verify(log.header, log.events, seed))
    assert game is not None
    figures["end"] = timed(lambda: check_end(log, game, Report()))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--games", type=int, default=5, help="logs (different games) measured")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        identity = HostIdentity.load(folder / "host")
        for number in range(1, args.games + 1):
            path = long_race_log(folder, args.seats, number, identity)
            log = read_game_log(path)
            known = {identity.public_key: ["the host"]}  # as a player who joined it
            assert check_log(log, known=known).ok, check_log(log, known=known).lines
            runs = [one_run(path, known) for _ in range(args.runs)]
            ratios = [run["whole --verify"] / run["baseline (old --verify)"] for run in runs]
            print(
                f"\nrace log {number}: {args.seats} seats, {len(log.events)} events, "
                f"{path.stat().st_size:,} bytes (median of {args.runs} runs, CPU ms)"
            )
            for name in runs[0]:
                print(f"  {name:24} {statistics.median(run[name] for run in runs) * 1000:8.2f}")
            print(f"  whole / baseline         {statistics.median(ratios):8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
