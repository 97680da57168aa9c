"""A records flood on 300,000 games: an honest leaderboard page and a game's rating, with and
without one address's 8 connections hammering the records (issue 28, attack 7).

    python benchmarks/records_flood.py [--games 300000] [--players 10000] [--seconds 6]
                                       [--baseline DIR]

1. Builds a records index of `--games` finished games among `--players` players and the
   bots (one to four seats; race, knock and dice; solo dice games too) straight through
   SQL in one transaction, into a file made by the checkout's own schema code (so a host of
   that checkout opens it as its own), and prints how long that took.
2. Starts a real `kismet-host` of that checkout on 127.0.0.1 on that state folder
   (`--cap-loopback`: loopback counts as an address like any other; no bots, no pruning).
3. Quiet: an honest player (from 127.0.0.2) asks for the dice leaderboard's first page
   every 0.5 s, and two players (from 127.0.0.3) play a two-player dice game to its end:
   the page's latency (median, worst) and the game's rating time (its last move seen to
   the table showing the ratings).
4. Flood: the same while 8 connections from 127.0.0.1 each ask for records as fast as the
   host lets a connection send (30 a second, at most 4 waiting), mixing the costly pages:
   recent games of one ruleset, deep pages of recent games and of a bot's games, a bot's
   high scores. Prints the same figures, and how many flood requests were answered and
   refused.

With --baseline DIR (another checkout, e.g. a worktree of main) the same runs there too,
on a file built by that checkout's code, and both are printed. Load lasts `--seconds` per
phase (plus the game). Linux: 127.0.0.2 and .3 are loopback addresses there. With
--uncapped the host runs without --cap-loopback, so the 8 flood connections are 8 players
with an allowance each (what the worker's order and the indexes hold up alone).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kismet_tui.net import Client  # noqa: E402
from kismet_tui.net.client import RequestError  # noqa: E402
from protocol import encode, limits  # noqa: E402
from protocol.framing import FROM_HOST, read_frame  # noqa: E402

# Run in the measured checkout (its own schema code makes the file), fed the figures on argv.
BUILDER = r"""
import random, sqlite3, sys, time
from server.records import connect
from server.records.proof import player_id
from server.records.schema import migrate
path, games, players = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(1)
ids = [player_id(f"key player {n}") for n in range(players)]
bots = ["bot:greedy", "bot:easy", "bot:medium"]
db = connect(path)
migrate(db)
began = time.perf_counter()
rulesets = ("race", "knock", "dice")
game_rows, seat_rows, last = [], [], {}
t = 1_700_000_000_000
for n in range(games):
    ruleset = rulesets[n % 3]
    solo = ruleset == "dice" and n % 2
    who = [ids[rng.randrange(players)]] if solo else rng.sample(ids, rng.randint(1, 3)) + [rng.choice(bots)]
    scores = [rng.randint(150, 330) if ruleset == "dice" else rng.randint(0, 30) for _ in who]
    best = max(scores)
    t += rng.randint(1_000, 20_000)
    game_rows.append((n + 1, f"{n:08d}-table{n % 200}-{ruleset}.kismet", ruleset, n % 200, t - 600_000, t,
                      len(who), best, 1, 1))
    for seat, (player, score) in enumerate(zip(who, scores)):
        rating = None if solo else rng.randint(700, 1400)
        seat_rows.append((n + 1, seat, player, f"Player {player[:6]}", score, int(score == best),
                          rating, rating, 0))
        last[player] = t
db.executemany("INSERT INTO games (id, log_file, ruleset, table_id, started_ms, ended_ms, seat_count, "
               "top_score, finished, log_kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
db.executemany("INSERT INTO seats (game_id, seat, player_id, name, score, won, rating_before, "
               "rating_after, personal_best) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", seat_rows)
db.executemany("INSERT INTO players (id, name, is_bot, last_ms) VALUES (?, ?, ?, ?)",
               [(p, f"Player {p[:6]}", int(p.startswith("bot:")), ms) for p, ms in last.items()])
db.execute("INSERT INTO standings (player_id, ruleset, mu, sigma, rating, games, wins, best, total) "
           "SELECT s.player_id, g.ruleset, 25.0, 3.0, 1000 + (COUNT(*) * 7) % 500, COUNT(*), SUM(s.won), "
           "MAX(s.score), SUM(s.score) FROM seats s JOIN games g ON g.id = s.game_id GROUP BY s.player_id, g.ruleset")
if "solo_player" in [row[1] for row in db.execute("PRAGMA table_info(games)")]:
    db.execute("UPDATE games SET solo_player = (SELECT s.player_id FROM seats s WHERE s.game_id = games.id) "
               "WHERE seat_count = 1")
db.commit()
db.close()
print(f"{time.perf_counter() - began:.1f}")
"""

# The flood's pages: the costly ones (a sort of every game of a ruleset before; deep pages).
FLOOD = [
    {"view": "recent", "ruleset": "dice", "page": 0},
    {"view": "recent", "ruleset": "race", "page": 0},
    {"view": "recent", "page": 9000},
    {"view": "player", "player": "bot:greedy", "page": 5000},
    {"view": "best", "ruleset": "dice", "player": "bot:greedy"},
    {"view": "recent", "ruleset": "knock", "page": 3000},
]


def from_address(source: str):
    """asyncio.open_connection from a chosen loopback address (the Client has no option for
    it): set around one connect, then put back."""
    real = asyncio.open_connection

    async def opener(host, port, **kwargs):
        return await real(host, port, local_addr=(source, 0), **kwargs)

    return real, opener


async def client_from(source: str, port: int, name: str, key: str | None = None) -> Client:
    client = Client(reconnect=False)
    client.player_key = key
    real, opener = from_address(source)
    asyncio.open_connection = opener  # type: ignore[assignment]
    try:
        await client.connect("127.0.0.1", port, name)
    finally:
        asyncio.open_connection = real  # type: ignore[assignment]
    return client


class Flooder:
    """One raw connection asking for records as fast as the host lets one connection send."""

    def __init__(self) -> None:
        self.answered = self.refused = 0

    async def run(self, port: int, stop: asyncio.Event, number: int) -> None:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=("127.0.0.1", 0)
        )
        writer.write(
            encode({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": f"Flood {number}"})
        )
        assert (await read_frame(reader, FROM_HOST))["type"] == "welcome"
        waiting = asyncio.Semaphore(4)
        sent = 0

        async def read() -> None:
            while True:
                message = await read_frame(reader, FROM_HOST)
                if message.get("type") == "records":
                    self.answered += 1
                elif message.get("type") == "error":
                    self.refused += 1
                if "re" in message:
                    waiting.release()

        reading = asyncio.create_task(read())
        try:
            while not stop.is_set():
                await waiting.acquire()
                sent += 1
                writer.write(
                    encode({"type": "records", "id": sent, **FLOOD[(sent + number) % len(FLOOD)]})
                )
                await asyncio.sleep(1 / 30)  # under the host's 40 messages a second per connection
        finally:
            reading.cancel()
            writer.close()


async def play_dice(bo: Client, cy: Client) -> float:
    """A two-player dice game to its end; seconds from its last move seen to the ratings shown."""
    table = await bo.create_table("dice")
    await cy.join_table(table["id"])
    await cy.ready()
    await bo.start()
    while bo.game is None or cy.game is None or bo.table["state"] != "playing":
        await asyncio.sleep(0.005)
    ended = rated = 0.0

    async def watch() -> None:
        nonlocal ended, rated
        async for message in bo.messages():
            if not ended and bo.game is not None and bo.game.finished:
                ended = time.perf_counter()
            if message.get("type") == "table" and all(
                s.get("outcome") for s in message["table"]["seats"]
            ):
                rated = time.perf_counter()
                return

    watcher = asyncio.create_task(watch())
    while not bo.game.finished:
        mover = bo if bo.game.current == bo.seat else cy
        for action in ({"type": "roll", "hold": []}, None):
            while True:
                try:
                    await mover.act(action or {"type": "score", "box": mover.game.best_box()})
                    break
                except RequestError as exc:
                    if exc.code != "slow_down":
                        raise
                    await asyncio.sleep(0.05)
    await asyncio.wait_for(watcher, 120)
    await bo.leave()
    await cy.leave()
    return rated - ended


async def phase(port: int, seconds: float, flood: bool) -> dict:
    honest = await client_from("127.0.0.2", port, "Honest", "h" * 43)
    bo = await client_from("127.0.0.3", port, "Bo", "b" * 43)
    cy = await client_from("127.0.0.3", port, "Cy", "c" * 43)
    stop = asyncio.Event()
    flooders = [Flooder() for _ in range(8 if flood else 0)]
    tasks = [asyncio.create_task(f.run(port, stop, n)) for n, f in enumerate(flooders)]
    await asyncio.sleep(0.5 if flood else 0)  # the flood is under way
    pages: list[float] = []

    async def ask_pages() -> None:
        while not stop.is_set():
            began = time.perf_counter()
            await honest.records("leaderboard", "dice")
            pages.append(time.perf_counter() - began)
            await asyncio.sleep(0.5)  # a person paging: within a player's 2 a second

    asker = asyncio.create_task(ask_pages())
    began = time.perf_counter()
    rating = await play_dice(bo, cy)
    left = seconds - (time.perf_counter() - began)
    if left > 0:
        await asyncio.sleep(left)
    stop.set()
    await asker  # (an honest page refused would end the run with its words)
    await asyncio.gather(*tasks, return_exceptions=True)
    for client in (honest, bo, cy):
        await client.close()
    return {
        "page_median_ms": statistics.median(pages) * 1000,
        "page_worst_ms": max(pages) * 1000,
        "pages": len(pages),
        "rating_s": rating,
        "flood_answered": sum(f.answered for f in flooders),
        "flood_refused": sum(f.refused for f in flooders),
    }


def start_host(checkout: Path, state: Path, cap: bool) -> tuple[subprocess.Popen, int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(
        os.environ, PYTHONPATH=str(checkout), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            str(state),
            "--bots",
            "0",
            "--keep-games",
            "0",
            "--no-announce",
        ]
        + (["--cap-loopback"] if cap else []),
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    began = time.perf_counter()
    for line in proc.stdout:  # the records are open (and migrated) once it says how to join
        if line.startswith("Players join with"):
            print(f"    host ready in {time.perf_counter() - began:.1f} s")
            return proc, port
    raise RuntimeError("kismet-host ended before it was ready")


def run_checkout(label: str, checkout: Path, args: argparse.Namespace) -> dict:
    print(f"{label}: {checkout}")
    state = Path(tempfile.mkdtemp(prefix="records-flood-"))
    try:
        built = subprocess.run(
            [
                sys.executable,
                "-B",
                "-c",
                BUILDER,
                str(state / "records.sqlite3"),
                str(args.games),
                str(args.players),
            ],
            cwd=checkout,
            env=dict(os.environ, PYTHONPATH=str(checkout)),
            check=True,
            capture_output=True,
            text=True,
        )
        size = (state / "records.sqlite3").stat().st_size / 1e6
        print(f"    built {args.games} games in {built.stdout.strip()} s ({size:.0f} MB)")
        proc, port = start_host(checkout, state, not args.uncapped)
        try:
            figures = {
                "quiet": asyncio.run(phase(port, args.seconds, flood=False)),
                "flood": asyncio.run(phase(port, args.seconds, flood=True)),
            }
        finally:
            proc.terminate()
            proc.wait(20)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    for name, f in figures.items():
        print(
            f"    {name:5}: leaderboard page median {f['page_median_ms']:8.1f} ms, worst "
            f"{f['page_worst_ms']:8.1f} ms ({f['pages']} pages); a game's rating "
            f"{f['rating_s']:.3f} s after its end; flood requests answered {f['flood_answered']}, "
            f"refused {f['flood_refused']}"
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=6.0, help="load per phase")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to run too")
    parser.add_argument(
        "--uncapped",
        action="store_true",
        help="no --cap-loopback: each flood connection is a player of its own",
    )
    args = parser.parse_args()
    if args.baseline is not None:
        run_checkout("baseline", args.baseline.resolve(), args)
    run_checkout("this checkout", ROOT, args)


if __name__ == "__main__":
    main()
