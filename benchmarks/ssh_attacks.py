"""What an attacker's ssh session costs the host's machine: a flood of keys and a huge window.

A real `kismet-host --ssh` subprocess of a source tree (this one by default, `--tree` for
another, e.g. a checkout of an older commit as the baseline); the attacks come as an attacker
sends them:

- flood: OpenSSH's `ssh -tt` with 2 MB of `x` piped into its stdin (one login, key auth);
- resize: asyncssh's client asks a 100000x100000 window at login and again on resize;
- idle, the baseline: the same login with an 80x24 window, doing nothing.

Printed, for each: the resident memory (RSS, MB) of the host process and of its session
children before, at the peak over the watch (sampled every 0.2 s) and at the end. Run
several times (--runs) for the medians.

    python benchmarks/ssh_attacks.py [--tree PATH] [--watch 30] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import asyncssh  # noqa: E402

from benchmarks.ssh_sessions import children, free_port, rss_kb  # noqa: E402

FLOOD = 2 * 1024 * 1024


def memory_mb(host_pid: int) -> tuple[float, float]:
    """(host RSS, the sum of its session children's RSS), in MB."""
    try:
        kids = sum(rss_kb(pid) for pid in children(host_pid))
        return rss_kb(host_pid) / 1024, kids / 1024
    except (OSError, ValueError):
        return 0.0, 0.0


@contextlib.contextmanager
def kismet_host(tree: Path):
    """A `kismet-host --ssh` of `tree` on a fresh state folder; yields (process, ssh port,
    the state folder); killed and its folder removed on exit."""
    state = Path(tempfile.mkdtemp())
    proc, ssh_port = start_host(tree, state)
    try:
        yield proc, ssh_port, state
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(state, ignore_errors=True)


def start_host(tree: Path, state: Path) -> tuple[subprocess.Popen, int]:
    port, ssh_port = free_port(), free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--ssh",
            str(ssh_port),
            "--state-dir",
            str(state),
            "--bots",
            "0",
            "--no-announce",
        ],
        cwd=tree,
        env=dict(os.environ, PYTHONPATH=str(tree)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    import socket

    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", ssh_port), timeout=0.2).close()
            return proc, ssh_port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("kismet-host did not start")


async def watch(host_pid: int, seconds: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """(peak, last) of memory_mb over `seconds`."""
    peak = (0.0, 0.0)
    last = peak
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        last = memory_mb(host_pid)
        peak = (max(peak[0], last[0]), max(peak[1], last[1]))
        await asyncio.sleep(0.2)
    return peak, last


async def flood(tree: Path, seconds: float) -> dict:
    with kismet_host(tree) as (proc, ssh_port, state):
        key = state / "id_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        payload = state / "keys"
        payload.write_bytes(b"x" * FLOOD)
        await asyncio.sleep(1.0)
        before = memory_mb(proc.pid)
        with open(payload, "rb") as keys:
            client = subprocess.Popen(
                [
                    "ssh",
                    "-tt",
                    "-p",
                    str(ssh_port),
                    "-i",
                    str(key),
                    "-o",
                    "IdentitiesOnly=yes",
                    "-o",
                    "StrictHostKeyChecking=no",
                    "-o",
                    "UserKnownHostsFile=/dev/null",
                    "-o",
                    "BatchMode=yes",
                    "-F",
                    "/dev/null",
                    "-l",
                    "Mallory",
                    "127.0.0.1",
                ],
                stdin=keys,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            peak, last = await watch(proc.pid, seconds)
            client.kill()
            client.wait()
        return {"before": before, "peak": peak, "last": last}


class Quiet(asyncssh.SSHClientSession):
    def data_received(self, data, datatype):
        pass


async def resize(tree: Path, seconds: float, size: tuple[int, int] = (100000, 100000)) -> dict:
    with kismet_host(tree) as (proc, ssh_port, _):
        await asyncio.sleep(1.0)
        before = memory_mb(proc.pid)
        async with asyncssh.connect(
            "127.0.0.1",
            ssh_port,
            username="Mallory",
            known_hosts=None,
            client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
            agent_path=None,
        ) as conn:
            chan, _ = await conn.create_session(
                Quiet, term_type="xterm-256color", term_size=size, encoding=None
            )
            await asyncio.sleep(seconds / 2)
            chan.change_terminal_size(*size)
            peak, last = await watch(proc.pid, seconds / 2)
            chan.close()
        return {"before": before, "peak": peak, "last": last}


def line(what: str, runs: list[dict]) -> str:
    def median(pick):
        return statistics.median(pick(run) for run in runs)

    return (
        f"{what:6} host {median(lambda r: r['before'][0]):6.0f} -> peak "
        f"{median(lambda r: r['peak'][0]):6.0f} MB; session children "
        f"{median(lambda r: r['before'][1]):6.0f} -> peak {median(lambda r: r['peak'][1]):6.0f}"
        f" (end {median(lambda r: r['last'][1]):6.0f}) MB   (median of {len(runs)})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree whose host runs")
    parser.add_argument("--watch", type=float, default=30.0, help="seconds each attack is watched")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"tree {args.tree}, watched {args.watch:.0f} s")
    print(line("idle", [await resize(args.tree, args.watch, (80, 24)) for _ in range(args.runs)]))
    print(line("flood", [await flood(args.tree, args.watch) for _ in range(args.runs)]))
    print(line("resize", [await resize(args.tree, args.watch) for _ in range(args.runs)]))


if __name__ == "__main__":
    asyncio.run(main())
