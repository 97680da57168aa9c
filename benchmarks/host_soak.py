"""Soak a real `kismet-host`: many connections playing dice for minutes; is it flat?

    python benchmarks/host_soak.py [--tables 50] [--clients 4] [--seconds 300]
                                   [--interval-ms 100] [--keep-games 200] [--sample-s 15]

The load is benchmarks/host_load.py's (N tables x M raw clients playing dice, rematching when
a game ends) against one `kismet-host` process. Every `--sample-s` seconds the script reads
the host's resident memory (VmRSS) and open file descriptors from /proc, and the number and
size of its game logs; it prints each sample, then the first and last samples side by side
and their ratio. Flat means: memory settles after the first minute, descriptors stay at the
connections plus a handful, and game logs stop at --keep-games.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import host_load  # noqa: E402


def sample(pid: int, games: Path, began: float) -> dict:
    rss_kb = 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    logs = list(games.glob("*.kismet"))
    size = sum(p.stat().st_size for p in logs if p.exists())
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return {
        "t": time.monotonic() - began,
        "rss_mb": rss_kb / 1024,
        "fds": fds,
        "logs": len(logs),
        "logs_mb": size / 1e6,
        "cpu_s": cpu_s,
    }


async def soak(args) -> None:
    state = tempfile.mkdtemp(prefix="kismet-soak-")
    port = host_load.free_port()
    proc = host_load.spawn("host", port, state, ["--keep-games", str(args.keep_games)])
    games = Path(state) / "games"
    samples: list[dict] = []
    began = time.monotonic()

    async def sampler():
        while True:
            samples.append(sample(proc.pid, games, began))
            s = samples[-1]
            print(
                f"  t={s['t']:6.0f}s  rss={s['rss_mb']:6.1f} MB  fds={s['fds']:4d}  "
                f"logs={s['logs']:5d} ({s['logs_mb']:.2f} MB)  host cpu={s['cpu_s']:.0f}s",
                flush=True,
            )
            await asyncio.sleep(args.sample_s)

    task = asyncio.create_task(sampler())
    try:
        result = await host_load.run_load(
            port, proc.pid, "host", args.tables, args.clients, args.seconds, args.interval_ms, False
        )
    finally:
        task.cancel()
        proc.terminate()
        proc.wait(10)
    print(
        f"\n{args.tables * args.clients} connections, {args.seconds:.0f} s: "
        f"{result['events_per_s']:.0f} events/s, p50 {result['p50']:.1f} ms, p99 {result['p99']:.1f} ms"
    )
    # The first sample after the warm-up minute against the last.
    settled = next((s for s in samples if s["t"] >= 60), samples[0])
    last = samples[-1]
    for key, unit in (("rss_mb", "MB"), ("fds", ""), ("logs", ""), ("logs_mb", "MB")):
        ratio = last[key] / settled[key] if settled[key] else float("nan")
        print(
            f"{key:8s} at {settled['t']:4.0f}s: {settled[key]:8.1f}{unit}   at {last['t']:4.0f}s: "
            f"{last[key]:8.1f}{unit}   ratio {ratio:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--interval-ms", type=int, default=100)
    parser.add_argument("--keep-games", type=int, default=200)
    parser.add_argument("--sample-s", type=float, default=15.0)
    args = parser.parse_args()
    host_load.new_event_loop_policy()
    asyncio.run(soak(args))


if __name__ == "__main__":
    main()
