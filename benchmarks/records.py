"""The records at size: 100,000 games and 10,000 players.

    python benchmarks/records.py [--games 100000] [--players 10000] [--logs 10000] [--runs 3]

1. Builds a records database of `--games` finished games among `--players` players (two to
   four seats, race, knock and dice, through the index's own code: server/records/index.py),
   and prints how long that took.
2. Times the pages a `records` request asks for, on that file, median of 200 runs each: the
   leaderboard's first page and a deep one, a player's page, the recent games, the high
   scores; beside a baseline in the same process (`SELECT 1` on the same connection).
3. Event-loop time of a game's index write: an in-process host on that database plays solo
   dice games over TCP (benchmarks/game_end_stall.py's probe), and prints the loop's
   longest CPU stretch at each game end (the end record's write and fsync, the table file,
   handing the game to the records' thread), beside an idle stretch as long.
4. `kismet-host --reindex` of `--logs` real-size logs (each a whole random game of its
   ruleset, as a host writes them), median of `--runs`, beside a baseline: reading the same
   logs alone (what the index needs of each) without writing anything.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.game_end_stall import game_end_stalls  # noqa: E402
from protocol.gamelog import record_bytes  # noqa: E402
from server.records import FILE_NAME, connect, queries  # noqa: E402
from server.records.index import EndedGame, index_game, read_ended  # noqa: E402
from server.records.proof import player_id  # noqa: E402
from server.records.schema import migrate  # noqa: E402

RULESETS = ("race", "knock", "dice")


def build(path: Path, games: int, players: int, seed: int = 1) -> float:
    rng = random.Random(seed)
    ids = [player_id(f"key player {n}") for n in range(players)]
    db = connect(path)
    migrate(db)
    began = time.perf_counter()
    t = 1_700_000_000_000
    for n in range(games):
        ruleset = RULESETS[n % 3]
        seats = 1 if ruleset == "dice" and n % 2 else rng.randint(2, 4)
        chosen = rng.sample(range(players), seats)
        scores = [
            rng.randint(0, 30) if ruleset != "dice" else rng.randint(150, 330) for _ in chosen
        ]
        best = max(scores)
        t += rng.randint(1_000, 60_000)
        index_game(
            db,
            EndedGame(
                f"{n:08d}-table{n % 200}-{ruleset}.kismet",
                ruleset,
                n % 200,
                t - 600_000,
                t,
                [f"Player {p}" for p in chosen],
                [ids[p] for p in chosen],
                scores,
                [s for s, score in enumerate(scores) if score == best],
            ),
        )
    db.close()
    return time.perf_counter() - began


def median_ms(call, runs: int = 200) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def time_pages(path: Path, players: int) -> None:
    db = connect(path)
    someone = player_id(f"key player {players // 2}")
    baseline = median_ms(lambda: db.execute("SELECT 1").fetchone())
    pages = {
        "leaderboard page 1 (race)": lambda: queries.leaderboard(db, "race", 0),
        "leaderboard page 200 (race)": lambda: queries.leaderboard(db, "race", 199),
        "a player's page": lambda: queries.player(db, someone, 0),
        "recent games page 1": lambda: queries.recent(db, None, 0),
        "solo dice high scores": lambda: queries.best(db, "dice"),
    }
    print(f"  baseline SELECT 1: {baseline:.3f} ms")
    for label, call in pages.items():
        took = median_ms(call)
        print(f"  {label:30} {took:7.3f} ms median ({took / baseline:6.0f}x the baseline)")
    db.close()


def template_games() -> dict[str, tuple[dict, list[dict], dict]]:
    """One whole random game per ruleset (header, events, end), as a host logs them."""
    from kismet_tui.rules import new_game
    from kismet_tui.rules.playout import random_playout
    from kismet_tui.rules.rng import SeededRNG

    names = ["Ana", "Bo", "Cy"]
    made = {}
    for ruleset in RULESETS:
        game = new_game(ruleset, names, b"bench-" + ruleset.encode(), {}, start_ms=0)
        # (knock's watchers would knock at random for ever: weighted as its docstring says)
        weights = {"knock": 1} if ruleset == "knock" else None
        events = random_playout(
            game,
            SeededRNG(b"play-" + ruleset.encode()),
            max_gap_ms=800,
            weights=weights,
            default_weight=24 if weights else 1,
        )
        header = {"ruleset": ruleset, "seats": names, "options": {}, "t0": 0}
        made[ruleset] = (header, events, {"result": game.result()})
    return made


def write_logs(folder: Path, count: int, players: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    templates = template_games()
    rng = random.Random(2)
    ids = [player_id(f"key player {n}") for n in range(players)]
    total = 0
    for n in range(count):
        ruleset = RULESETS[n % 3]
        header, events, end = templates[ruleset]
        t0 = 1_700_000_000_000 + n * 60_000
        head = {**header, "t0": t0, "players": [ids[p] for p in rng.sample(range(players), 3)]}
        data = record_bytes({"kind": "header", "header": head, "table": n % 200})
        data += b"".join(record_bytes({"kind": "event", **e, "t": e["t"] + t0}) for e in events)
        data += record_bytes({"kind": "end", **end})
        (folder / f"{n:08d}-table{n % 200}-{ruleset}.kismet").write_bytes(data)
        total += len(data)
    return total


def time_reindex(logs: int, players: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as state:
        size = write_logs(Path(state) / "games", logs, players)
        print(f"  {logs} logs, {size / 1e6:.1f} MB")
        folder = Path(state) / "games"
        began = time.perf_counter()
        for path in folder.iterdir():
            read_ended(path)
        print(f"  baseline (reading the logs alone): {time.perf_counter() - began:.2f} s")
        took = []
        for _ in range(runs):
            began = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "server.cli", "--state-dir", state, "--reindex"],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            took.append(time.perf_counter() - began)
        rows = (
            sqlite3.connect(Path(state) / FILE_NAME)
            .execute("SELECT COUNT(*) FROM games")
            .fetchone()[0]
        )
        print(
            f"  kismet-host --reindex: {statistics.median(took):.2f} s median of {runs} "
            f"(runs {', '.join(f'{t:.2f}' for t in took)}; {rows} games indexed)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--logs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--game-ends", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        path = Path(state) / FILE_NAME
        took = build(path, args.games, args.players)
        print(
            f"Built {args.games} games among {args.players} players in {took:.1f} s "
            f"({took / args.games * 1000:.2f} ms a game on the records' thread)."
        )
        print("Pages (one records request each):")
        time_pages(path, args.players)
        print("A game's end on the host's event loop, with that database:")
        stalls = asyncio.run(game_end_stalls(Path(state), 10**9, args.game_ends))
        cpu, idle = [s[1] for s in stalls], [s[2] for s in stalls]
        print(
            f"  loop CPU stretch median {statistics.median(cpu):.2f} ms (worst {max(cpu):.2f}); "
            f"idle lag floor median {statistics.median(idle):.2f} ms"
        )
        db = sqlite3.connect(path)
        print(
            f"  ({db.execute('SELECT COUNT(*) FROM games').fetchone()[0]} games in the records after)"
        )
    print("Rebuilding from logs:")
    time_reindex(args.logs, args.players, args.runs)


if __name__ == "__main__":
    main()
