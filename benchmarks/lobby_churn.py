"""What one connection churning at a table costs the idle lobbies (issue 28, attack 3).

One connection joins a table as a watcher and leaves again, as fast as the host's message
rate lets it (just under protocol.limits.RATE_PER_SECOND messages a second), while the host
holds `--tables` open tables and `--lobbies` players sit idle in the lobby. Each push of the
table list reaches every lobby; before issue 28 each was the whole list, pushed 5 times a
second, and each lobby rebuilt its whole grid for it.

This starts a real `kismet-host` on 127.0.0.1 (its own state folder, no bots), opens the
tables with raw protocol connections (one owner each), starts the lobbies as real
`kismet-join` apps on ptys of 100x30 (server/doors/pty_app.py), and then measures, over windows of
`--seconds`:

- the lobbies' CPU together (utime + stime from /proc/PID/stat), in % of one core, first
  with nothing happening, then under churn;
- the bytes each lobby receives a second from the host under churn (`ss`: tcp_info's
  bytes_received on its connection);
- the bytes each lobby draws on its terminal a second under churn (what an ssh session
  would carry);
- the host's CPU under churn;
- key presses in one lobby, with nothing happening and under churn: `n` until the new-table
  form shows "Create", then escape until the lobby's "Tables" title is drawn again (median,
  and the worst under churn).

With `--baseline TREE` (another checkout, e.g. /work/main) the same is run first with that
tree's host and apps, then with this one; one after the other, each with the machine to
itself, and the figures printed side by side.

    python benchmarks/lobby_churn.py [--baseline /work/main] [--lobbies 10] [--tables 200]
                                     [--seconds 5] [--presses 5]
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

from benchmarks.ssh_sessions import Output, cpu_s, free_port  # noqa: E402
from protocol import encode, limits  # noqa: E402
from protocol.framing import FROM_HOST, read_frame  # noqa: E402
from server.doors.pty_app import PtyApp  # noqa: E402


def received(port: int) -> dict[int, int]:
    """Bytes each process has received on its connections to the host at `port` (ss's
    tcp_info `bytes_received`, per socket, summed by the owning process)."""
    out = subprocess.run(
        ["ss", "-tinpH", "dst", f"127.0.0.1:{port}"], capture_output=True, text=True, check=True
    ).stdout
    totals: dict[int, int] = {}
    pid = None
    for line in out.splitlines():
        if "pid=" in line:
            pid = int(line.split("pid=", 1)[1].split(",", 1)[0])
        elif pid is not None and "bytes_received:" in line:
            count = int(line.split("bytes_received:", 1)[1].split()[0])
            totals[pid] = totals.get(pid, 0) + count
            pid = None
    return totals


class Raw:
    """A bare protocol connection that reads (and drops) whatever it is sent."""

    async def open(self, port: int, name: str) -> Raw:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.send({"type": "hello", "version": limits.PROTOCOL_VERSION, "name": name, "id": 0})
        self.answers: dict[int, asyncio.Future[dict]] = {}
        self.refused = 0
        self.task = asyncio.create_task(self.read())
        return self

    def send(self, message: dict) -> None:
        self.writer.write(encode(message))

    async def request(self, message: dict, rid: int) -> dict:
        future = self.answers[rid] = asyncio.get_running_loop().create_future()
        self.send({**message, "id": rid})
        return await asyncio.wait_for(future, 30)

    async def read(self) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                message = await read_frame(self.reader, FROM_HOST)
                if message.get("type") == "error" and message.get("code") == "slow_down":
                    self.refused += 1
                future = self.answers.pop(message.get("re"), None)
                if future is not None and not future.done():
                    future.set_result(message)

    def close(self) -> None:
        self.task.cancel()
        self.writer.close()


async def churn(port: int, table_id: int, stop: asyncio.Event) -> tuple[int, Raw]:
    """Watch table `table_id`, leave, watch, ... just under the host's message rate until
    `stop`; returns how many messages were sent, and the connection."""
    churner = await Raw().open(port, "Churner")
    began, sent = time.monotonic(), 0
    while not stop.is_set():
        kind = "leave" if sent % 2 else "join_table"
        churner.send({"type": kind, "table": table_id, "spectator": True})
        sent += 1
        await asyncio.sleep(
            max(0.0, began + sent / (limits.RATE_PER_SECOND - 2) - time.monotonic())
        )
    return sent, churner


async def key_presses(app: PtyApp, out: Output, presses: int) -> list[float]:
    """Seconds from each key to its answer on screen: n (the form), escape (the lobby)."""
    times = []
    for _ in range(presses):
        for key, words in ((b"n", b"Create"), (b"\x1b", b"Tables")):
            since = len(out.data)
            start = time.perf_counter()
            app.write(key)
            await out.wait_for(words, since, 120)
            times.append(time.perf_counter() - start)
            await asyncio.sleep(0.3)
    return times


async def arrow_presses(app: PtyApp, out: Output, presses: int, first_id: int) -> list[float]:
    """Seconds from each arrow key to the row it moved to drawn highlighted (the lightest
    key of the lobby: two rows redrawn). The cursor starts on the first table, whose id is
    `first_id` (ids follow each other); the highlight is the theme's cursor background
    (colour 32 on a 256-colour terminal), as the row's first cell is drawn."""
    times = []
    position = 0
    for n in range(presses * 2):
        key, step = (b"\x1b[B", 1) if n % 2 == 0 else (b"\x1b[A", -1)
        position += step
        since = len(out.data)
        start = time.perf_counter()
        app.write(key)
        await out.wait_for(f"48;5;32m {first_id + position}  ".encode(), since, 120)
        times.append(time.perf_counter() - start)
        await asyncio.sleep(0.3)
    return times


async def measure(label: str, tree: Path, args: argparse.Namespace) -> dict[str, float]:
    state = tempfile.mkdtemp(prefix="kismet-churn-")
    port = free_port()
    os.environ["PYTHONPATH"] = str(tree)  # the host's, and the apps' (read when each starts)
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
            "--tables-per-player",
            "0",
        ],
        cwd=state,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    owners: list[Raw] = []
    apps: list[PtyApp] = []
    outputs: list[Output] = []
    try:
        assert host.stdout is not None
        while "listening" not in (line := host.stdout.readline()):
            if not line:
                raise SystemExit(f"{label}: kismet-host did not start")
        for number in range(args.tables):
            owner = await Raw().open(port, f"Owner {number}")
            await owner.request({"type": "create_table", "ruleset": "dice"}, 1)
            owners.append(owner)
        for number in range(args.lobbies):
            # A player of its own each (a player key is kept in the state folder: one key,
            # one connection), and none of this machine's user folders touched.
            for var in ("XDG_STATE_HOME", "XDG_DATA_HOME"):
                os.environ[var] = os.path.join(state, f"lobby-{number}", var.lower())
            out = Output()
            app = PtyApp(
                [f"127.0.0.1:{port}", "--name", f"Lobby {number}", "--fresh"],
                term="xterm-256color",
                cols=100,
                rows=30,
                on_output=out.feed,
                on_exit=lambda code: None,
            )
            await app.start()
            apps.append(app)
            outputs.append(out)
        for out in outputs:
            try:
                await out.wait_for(b"dice", 0, 120)  # the table list drawn
            except TimeoutError:
                raise SystemExit(
                    f"{label}: a lobby never drew the tables; it showed: "
                    f"{bytes(out.data[-2000:])!r}"
                ) from None
        await asyncio.sleep(3)  # the first redraws settle
        pids = [app.pid for app in apps if app.pid is not None]
        key_app, key_out = apps[0], outputs[0]
        await key_presses(key_app, key_out, 1)  # the form's first opening imports it: not timed

        def window_cpu() -> tuple[float, dict[int, int]]:
            return sum(cpu_s(pid) for pid in pids), received(port)

        for out in outputs:
            out.data.clear()  # what is drawn from now on (the lobbies' own screens)
        cpu0, _ = window_cpu()
        await asyncio.sleep(args.seconds)
        cpu1, _ = window_cpu()
        quiet = (cpu1 - cpu0) * 100 / args.seconds
        quiet_presses = await key_presses(key_app, key_out, args.presses)
        first_id = (await owners[0].request({"type": "list_tables"}, 3))["tables"][0]["id"]
        quiet_arrows = await arrow_presses(key_app, key_out, args.presses, first_id)

        stop = asyncio.Event()
        listed = (await owners[0].request({"type": "list_tables"}, 2))["tables"]
        churner = asyncio.create_task(churn(port, listed[len(listed) // 2]["id"], stop))
        await asyncio.sleep(1)
        cpu0, read0 = window_cpu()
        drawn0 = [len(out.data) for out in outputs]
        host0, began = cpu_s(host.pid), time.monotonic()
        await asyncio.sleep(args.seconds)
        cpu1, read1 = window_cpu()
        drawn = [(len(out.data) - before) for out, before in zip(outputs, drawn0)]
        host1, took = cpu_s(host.pid), time.monotonic() - began
        presses = await key_presses(key_app, key_out, args.presses)
        arrows = await arrow_presses(key_app, key_out, args.presses, first_id)
        stop.set()
        sent, churn_conn = await churner
        churn_conn.close()
        per_lobby = [(read1.get(pid, 0) - read0.get(pid, 0)) / took for pid in pids]
        return {
            "quiet": quiet,
            "churn": (cpu1 - cpu0) * 100 / took,
            "host": (host1 - host0) * 100 / took,
            "bytes_mean": statistics.mean(per_lobby),
            "bytes_max": max(per_lobby),
            "drawn": statistics.mean(drawn) / took,
            "key_quiet": statistics.median(quiet_presses) * 1000,
            "key_median": statistics.median(presses) * 1000,
            "key_worst": max(presses) * 1000,
            "arrow_quiet": statistics.median(quiet_arrows) * 1000,
            "arrow_median": statistics.median(arrows) * 1000,
            "arrow_worst": max(arrows) * 1000,
            "churn_rate": sent / (time.monotonic() - began + 1),
            "refused": churn_conn.refused,
        }
    finally:
        for app in apps:
            await app.close()
        for owner in owners:
            owner.close()
        host.terminate()
        host.wait(10)
        shutil.rmtree(state, ignore_errors=True)


def show(label: str, tree: Path, figures: dict[str, float], lobbies: int) -> None:
    print(f"{label} ({tree}):")
    print(
        f"  {lobbies} idle lobbies, CPU together: {figures['quiet']:.1f}% of a core with nothing "
        f"happening, {figures['churn']:.1f}% under churn"
    )
    print(
        f"  bytes read a second per lobby under churn: {figures['bytes_mean'] / 1024:.1f} KiB "
        f"(most {figures['bytes_max'] / 1024:.1f} KiB); drawn on its terminal: "
        f"{figures['drawn'] / 1024:.1f} KiB"
    )
    print(
        f"  key press: median {figures['key_quiet']:.0f} ms with nothing happening; under churn "
        f"median {figures['key_median']:.0f} ms, worst {figures['key_worst']:.0f} ms (n, escape)"
    )
    print(
        f"  arrow key to the table it moved to: median {figures['arrow_quiet']:.0f} ms with nothing "
        f"happening; under churn median {figures['arrow_median']:.0f} ms, worst "
        f"{figures['arrow_worst']:.0f} ms"
    )
    print(
        f"  host CPU under churn: {figures['host']:.1f}%; churn {figures['churn_rate']:.0f} "
        f"messages/s, {figures['refused']:.0f} refused for pace"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, help="another checkout, measured first")
    parser.add_argument("--lobbies", type=int, default=10)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each window")
    parser.add_argument("--presses", type=int, default=5, help="n + escape pairs under churn")
    args = parser.parse_args()
    trees = {}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    trees["this tree"] = ROOT
    print(
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; "
        f"{args.tables} tables, {args.lobbies} lobbies, windows of {args.seconds:.0f} s"
    )
    for label, tree in trees.items():
        show(label, tree, await measure(label, tree, args), args.lobbies)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    asyncio.run(main())
