"""How long from a key press in the race screen to the grab showing on the card.

A real host on loopback, the app driven headless by Textual's Pilot at 80x24, a second player
who never grabs. Each round the app grabs one card by its key; we time (a) until the grab is
stamped and back in the app's replica, (b) until the circle drawn on screen names the grabber.
Prints the median and the worst of N rounds.

    python benchmarks/ui_grab_latency.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual import events

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from protocol.limits import REACTION_FLOOR_MS
from server import Host


async def until(pilot, condition, seconds: float = 10.0) -> None:
    # Plain sleeps, not pilot.pause(): Pilot waits for the app to fall idle, which a screen
    # redrawing a countdown ten times a second barely does, and that would be measured too.
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("gave up waiting")
        await asyncio.sleep(0.001)


def press(app, key: str) -> None:
    """A key press as the terminal driver delivers it (without Pilot's waiting)."""
    app.post_message(events.Key(key, key))


async def measure(rounds: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as state:
        host = Host(state_dir=state)
        await host.start("127.0.0.1", 0)
        other = Client(reconnect=False)
        await other.connect("127.0.0.1", host.port, "Bo")
        client = Client(reconnect=False)
        app = KismetApp(client, connect=lambda: client.connect("127.0.0.1", host.port, "Ana"))
        stamped, drawn = [], []
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: client.state == "connected")
            await other.create_table(
                "race", {"countdown_ms": 300, "round_limit_ms": 1500, "reveal_ms": 200}
            )
            await client.join_table(other.table["id"])
            await client.ready()
            await until(pilot, lambda: other.table["seats"][1]["ready"])
            await other.start()
            await until(pilot, lambda: getattr(app.screen, "RULESET", None) == "race")
            game = client.game
            while len(stamped) < rounds and not game.finished:
                await until(pilot, lambda: game.phase == "grabbing" or game.finished, 30)
                if game.finished:
                    break
                view = game.view(1)
                pos = next(c["pos"] for c in view["circle"] if c)
                # A grab sooner than the host's reaction floor after the throw is refused [D20].
                await until(pilot, lambda: client.since_throw_ms() >= REACTION_FLOOR_MS)
                start = time.perf_counter()
                press(app, "abcdefghijk"[pos])
                await until(
                    pilot,
                    lambda: (
                        any(g["seat"] == 1 for g in game.view(1)["grabs"])
                        or game.phase != "grabbing"
                    ),
                )
                stamped.append((time.perf_counter() - start) * 1000)
                if game.phase == "grabbing":
                    circle = app.screen.query_one("#circle")
                    await until(
                        pilot, lambda: "Ana" in str(circle.content) or game.phase != "grabbing"
                    )
                    drawn.append((time.perf_counter() - start) * 1000)
                await until(pilot, lambda: game.phase != "grabbing", 30)
            await client.close()
        await other.close()
        await host.stop()
    return stamped, drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    stamped, drawn = asyncio.run(measure(args.rounds))
    for label, values in (
        ("key press -> grab stamped and in the replica", stamped),
        ("key press -> grab drawn on the card", drawn),
    ):
        if values:
            print(
                f"{label}: median {statistics.median(values):.1f} ms, worst {max(values):.1f} ms "
                f"over {len(values)} rounds"
            )


if __name__ == "__main__":
    main()
