"""CPU an idle player's app spends, per minute, on a dice screen where nothing happens.

A player thinking over a throw, or a session left open over ssh, should cost next to
nothing: with 20 ssh sessions sharing two cores, what each idle app burns is taken from the
ones whose players are pressing keys. This starts a `kismet-host` on loopback and
`kismet-join` apps on ptys of 80x24 (server/doors/pty_app.py), opens a solo dice table with each
(n, enter, g, r), waits for the screen to settle, then reads each app's CPU time from /proc
over quiet windows and prints the median.

With `--baseline TREE` (another checkout of this repository, e.g. a git worktree of an
older commit), the same is measured at the same time for an app run from that tree, and the
ratio printed: both run side by side, so they share the machine's load.

    python benchmarks/ui_idle_cpu.py [--baseline ../before] [--windows 3] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ssh_sessions import SETUP, Output, cpu_s, free_port  # noqa: E402
from server.doors.pty_app import PtyApp  # noqa: E402


async def solo_dice_app(port: int, tree: Path, name: str) -> PtyApp:
    """A kismet-join from `tree` on its own pty, at a thrown solo dice game."""
    out = Output()
    os.environ["PYTHONPATH"] = str(tree)  # read when the child's environment is made
    app = PtyApp(
        [f"127.0.0.1:{port}", "--name", name, "--fresh"],
        term="xterm-256color",
        cols=80,
        rows=24,
        on_output=out.feed,
        on_exit=lambda code: None,
    )
    await app.start()
    await out.wait_for(b"Tables", 0, 120)
    for keys, words in SETUP:
        since = len(out.data)
        app.write(keys)
        await out.wait_for(words, since, 120)
    return app


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, help="another checkout to measure beside this one")
    parser.add_argument("--windows", type=int, default=3, help="quiet windows to measure")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each window")
    args = parser.parse_args()
    trees = {"this tree": ROOT}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    state = tempfile.mkdtemp(prefix="kismet-bench-")
    port = free_port()
    os.chdir(state)  # the apps import from PYTHONPATH, not from the current folder
    host = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            state,
            "--bots",
            "0",
            "--no-announce",
            "--log-level",
            "WARNING",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    apps: dict[str, PtyApp] = {}
    try:
        while "listening" not in (line := host.stdout.readline()):
            if not line:
                raise SystemExit("kismet-host did not start")
        for label, tree in trees.items():
            apps[label] = await solo_dice_app(port, tree, label.replace(" ", "-"))
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        await asyncio.sleep(5)  # the bot's turn, the first redraws
        per_minute: dict[str, list[float]] = {label: [] for label in apps}
        for _ in range(args.windows):
            before = {label: cpu_s(app.pid) for label, app in apps.items()}
            await asyncio.sleep(args.seconds)
            for label, app in apps.items():
                per_minute[label].append(
                    (cpu_s(app.pid) - before[label]) * 1000 * 60 / args.seconds
                )
        for label, values in per_minute.items():
            shown = ", ".join(f"{v:.0f}" for v in values)
            print(
                f"{label} ({trees[label]}): {statistics.median(values):.0f} ms CPU per idle minute"
                f" (windows: {shown})"
            )
        if len(per_minute) == 2:
            ours, theirs = (statistics.median(v) for v in per_minute.values())
            print(
                f"this tree / baseline: {ours / theirs:.2f}" if theirs else "baseline spent nothing"
            )
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        for app in apps.values():
            await app.close()
        host.terminate()
        host.wait(10)


if __name__ == "__main__":
    asyncio.run(main())
