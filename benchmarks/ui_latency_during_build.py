"""How quickly the dice screen answers a key while the optimal table builds in the background.

A real host on loopback, the app headless at 80x24 on a solo dice table after one throw. A
key press (hold or release die 1, delivered as the terminal driver does) is timed until the
screen's handler has run. First some presses with nothing else going on, then presses every
100 ms while the background build (solver/background.py, a real one, into a temporary
cache) runs, until it is done. Prints the median and the worst of each, and the build time.

    python benchmarks/ui_latency_during_build.py [--quiet-presses 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual import events

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from server import Host


async def until(condition, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("gave up waiting")
        await asyncio.sleep(0.001)


async def one_press(app, screen) -> float:
    before = set(screen.held)
    start = time.perf_counter()
    app.post_message(events.Key("1", "1"))
    await until(lambda: screen.held != before)
    return (time.perf_counter() - start) * 1000


async def measure(quiet_presses: int) -> tuple[list[float], list[float], float]:
    from kismet_tui.solver import background, table

    with tempfile.TemporaryDirectory() as state, tempfile.TemporaryDirectory() as cache:
        os.environ["KISMET_SOLVER_CACHE"] = cache
        host = Host(state_dir=state)
        await host.start("127.0.0.1", 0)
        client = Client(reconnect=False)
        app = KismetApp(client, connect=lambda: client.connect("127.0.0.1", host.port, "Ana"))
        async with app.run_test(size=(80, 24)):
            await until(lambda: client.state == "connected")
            await client.create_table("dice", {}, bots=[])
            await client.start()
            await until(lambda: getattr(app.screen, "RULESET", None) == "dice")
            await client.act({"type": "roll", "hold": []})
            await until(lambda: client.game.view(0)["rolls_used"] == 1)
            screen = app.screen
            await asyncio.sleep(0.5)
            quiet = []
            for _ in range(quiet_presses):
                quiet.append(await one_press(app, screen))
                await asyncio.sleep(0.1)
            build = background.start(table.cache_path())
            busy = []
            while not build.done.is_set():
                busy.append(await one_press(app, screen))
                await asyncio.sleep(0.1)
            seconds = build.finished_at - build.started_at
            await client.close()
        await host.stop()
    if build.state != "ready":
        raise SystemExit(f"the build failed: {build.error}")
    return quiet, busy, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet-presses", type=int, default=20)
    args = parser.parse_args()
    quiet, busy, seconds = asyncio.run(measure(args.quiet_presses))
    for label, values in (
        ("key press -> handled, nothing else running", quiet),
        ("key press -> handled, table building", busy),
    ):
        print(
            f"{label}: median {statistics.median(values):.1f} ms, worst {max(values):.1f} ms "
            f"over {len(values)} presses"
        )
    print(f"background build (child process at nice 10): {seconds:.1f} s wall")


if __name__ == "__main__":
    main()
