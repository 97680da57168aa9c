"""The host's own CPU for one stamped event, in-process: no network, no other process.

    python benchmarks/host_event_cpu.py [--acts 4000] [--runs 7] [--baseline DIR]

A real `Host` (a temporary state folder, real game logs and table files) with four
`Connection`s whose transports only count what they are given, so what is timed is the
host's work for a move from its bytes to the frames it hands each member: read and check
the frame, re-encode the action, run the engine (with its chance), write the log record,
encode the event, hand it to each member, the checkpoint digests, and at a game's end its
end record (flushed on the store's threads, off the timed path as off the event loop).
Four seats play dice, rematching at each end; the next move is chosen before the clock
starts. Printed: the process CPU per act (median and least of `--runs` runs of `--acts`
acts), and per game start (the readies' and start's handling: the log and the table file
made). `--baseline DIR` runs the same in a process from another source tree (say, the code
before a change, unpacked with `git archive`) and prints both and their ratio.

This is the floor of what `benchmarks/host_load.py` measures over loopback: there, the
sockets' system calls and the wake-ups of a loaded machine come on top.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class CountingTransport:
    """Stands in for a socket: takes every write, never closes, never fills."""

    def __init__(self) -> None:
        self.frames = 0

    def write(self, data: bytes) -> None:
        self.frames += 1

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_extra_info(self, name: str):
        return ("127.0.0.1", 1) if name == "peername" else None

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def is_reading(self) -> bool:
        return True

    def close(self) -> None:
        pass


async def measure(acts: int, runs: int) -> dict:
    from protocol import limits
    from protocol.framing import encode
    from server.connection import Connection
    from server.host import Host

    limits.RATE_PER_SECOND = limits.RATE_BURST = 10**9  # the pace limit is not the point here
    with tempfile.TemporaryDirectory() as state_dir:
        host = Host(state_dir=state_dir)
        conns = []
        for _ in range(4):
            conn = Connection(host.gate)
            conn.connection_made(CountingTransport())
            conns.append(conn)

        def send(conn, message: dict) -> None:
            conn.data_received(encode(message))

        for seat, conn in enumerate(conns):
            send(conn, {"type": "hello", "version": limits.PROTOCOL_VERSION, "name": f"p{seat}"})
        send(conns[0], {"type": "create_table", "ruleset": "dice", "id": 1})
        table = next(iter(host.tables.values()))
        for conn in conns[1:]:
            send(conn, {"type": "join_table", "table": table.id, "id": 1})
        starts: list[float] = []

        async def play(count: int) -> float:
            spent = 0.0
            for _ in range(count):
                # Its end is being flushed (`ending`: the table's before one pipeline).
                while getattr(table, "ending", None) is not None or getattr(
                    table.saving, "ending", False
                ):
                    await asyncio.sleep(0.001)
                if table.state != "playing":
                    began = time.process_time()
                    for conn in conns[1:]:
                        send(conn, {"type": "ready", "id": 2, "entropy": os.urandom(16)})
                    send(conns[0], {"type": "start", "entropy": os.urandom(16)})
                    starts.append(time.process_time() - began)
                game = table.game
                action = (
                    {"type": "roll", "hold": []}
                    if game.rolls == 0
                    else {"type": "score", "box": game.best_box()}
                )
                began = time.process_time()
                send(conns[game.current], {"type": "act", "action": action, "id": 5})
                spent += time.process_time() - began
            return spent / count

        await play(500)  # warm-up
        starts.clear()
        per_act = [await play(acts) for _ in range(runs)]
        await host.stop()
    return {
        "act_median": statistics.median(per_act) * 1e6,
        "act_least": min(per_act) * 1e6,
        "start_median": statistics.median(starts) * 1e6,
        "starts": len(starts),
    }


def run_in(root: Path, acts: int, runs: int) -> dict:
    """The measurement in a process of its own, importing the host from `root`."""
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run(
        [sys.executable, __file__, "--acts", str(acts), "--runs", str(runs), "--child"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    return dict((key, float(value)) for key, value in (line.split("=") for line in out.split()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--acts", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="DIR",
        help="also measure the host from this source tree (before a change)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        figures = asyncio.run(measure(args.acts, args.runs))
        print(" ".join(f"{key}={value}" for key, value in figures.items()))
        return
    trees = {"host": ROOT, **({"before": args.baseline} if args.baseline else {})}
    results = {name: run_in(tree, args.acts, args.runs) for name, tree in trees.items()}
    print(
        f"the host's CPU per act (4 members, dice), {args.runs} runs of {args.acts} acts; per game start"
    )
    for name, r in results.items():
        print(
            f"{name:7} act: median {r['act_median']:6.1f} us, least {r['act_least']:6.1f} us;"
            f"  start: median {r['start_median']:7.0f} us ({r['starts']:.0f} starts)"
        )
    if args.baseline:
        h, b = results["host"], results["before"]
        print(
            f"host/before: act {h['act_median'] / b['act_median']:.2f}x, "
            f"start {h['start_median'] / b['start_median']:.2f}x"
        )


if __name__ == "__main__":
    main()
