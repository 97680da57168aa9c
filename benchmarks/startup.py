"""`kismet` to its first screen, beside a bare Textual app, in one run.

Each command is started on its own pty of 80x24 (TERM=xterm-256color; HOME and the XDG
folders in a temporary folder this run makes, shared by its runs as a returning player's
are, so nothing of the user's is read or written; bytecode kept, as an installed package's
is) and timed
from just before exec to the moment the screen it drew (read through pyte, a terminal
emulator) first shows its words: "Play a game now" for `kismet` (the new-table form it opens
by itself once its embedded host answers), "Bare app ready" for the baseline, an App with one
Static. The two alternate, --runs times each, so both see the same load; the medians and
their ratio are printed, and beside them the CPU time each process had spent by then (all
its threads), which a busy machine disturbs less than the wall clock.

With --baseline TREE (another checkout of this repository, e.g. a git worktree of an older
commit), that tree's `kismet` is timed too, in the same rounds (PYTHONPATH=TREE).
With --imports, one more `kismet` runs with `-X importtime` and the modules it loaded before
its first screen are listed, the slowest first (cumulative microseconds).

    python benchmarks/startup.py [--runs 9] [--baseline ../before] [--imports]
"""

from __future__ import annotations

import argparse
import atexit
import fcntl
import os
import re
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parent.parent

BARE_APP = """
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("Bare app ready")

Bare().run()
"""
KISMET_WORDS = "Play a game now"
BARE_WORDS = "Bare app ready"
IMPORT_LINE = re.compile(rb"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def kismet_command() -> list[str]:
    """The installed `kismet` of this interpreter's environment."""
    script = Path(sys.executable).with_name("kismet")
    if not script.exists():
        sys.exit(f"No kismet beside {sys.executable}: pip install -e . in this environment first.")
    return [str(script)]


# Compiled bytecode is kept, as an installed package's is (whatever PYTHONDONTWRITEBYTECODE
# says here), in a folder of this run's own: the first, unmeasured runs write it.
BYTECODE = tempfile.mkdtemp(prefix="kismet-startup-pycache-")
atexit.register(shutil.rmtree, BYTECODE, True)


# One home for every run, as a returning player's: the first, unmeasured run of `kismet` makes
# its state folder and the host's key, as a player's first game once did.
HOME = tempfile.mkdtemp(prefix="kismet-startup-home-")
atexit.register(shutil.rmtree, HOME, True)


def cpu_seconds(pid: int) -> float:
    """CPU seconds the process has run so far, summed over its threads (nanoseconds, from
    each one's schedstat; a thread that has already ended is not counted)."""
    total_ns = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total_ns += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            pass
    return total_ns / 1e9


def time_to_words(
    command: list[str], words: str, extra_env: dict[str, str] | None = None, timeout: float = 30.0
) -> tuple[float, float, bytes]:
    """Seconds from exec to `words` on the screen, the CPU seconds the child had spent by
    then, and every byte written until then."""
    home = HOME
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPYCACHEPREFIX=BYTECODE,
        HOME=home,
        TERM="xterm-256color",
        COLUMNS="80",
        LINES="24",
        XDG_DATA_HOME=f"{home}/data",
        XDG_STATE_HOME=f"{home}/state",
        XDG_CACHE_HOME=f"{home}/cache",
        XDG_CONFIG_HOME=f"{home}/config",
        **(extra_env or {}),
    )
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    output = bytearray()
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    try:
        while True:
            left = started + timeout - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"{command[0]} showed no {words!r} in {timeout:g} s")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the pty: it ended before its screen
                raise RuntimeError(
                    f"{command[0]} ended before {words!r}:\n" + "\n".join(screen.display)
                ) from None
            output += chunk
            stream.feed(chunk)
            if any(words in line for line in screen.display):
                return time.perf_counter() - started, cpu_seconds(child.pid), bytes(output)
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        os.close(master)


def slowest_imports(output: bytes, count: int = 15) -> list[tuple[int, int, str]]:
    """(cumulative us, self us, module) of the top-level imports in -X importtime lines."""
    rows = []
    for match in IMPORT_LINE.finditer(output):
        self_us, cumulative_us, indent, module = match.groups()
        rows.append((int(cumulative_us), int(self_us), len(indent), module.decode()))
    top = [(cum, own, name) for cum, own, depth, name in rows if depth == 1]
    return sorted(top, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (default 9)")
    parser.add_argument("--baseline", type=Path, help="another checkout whose kismet is timed too")
    parser.add_argument(
        "--imports",
        action="store_true",
        help="also list what `kismet` imports before its first screen",
    )
    args = parser.parse_args()
    kismet = kismet_command()
    # name -> (command, the words of its first screen, extra environment)
    commands: dict[str, tuple[list[str], str, dict[str, str]]] = {
        "kismet": (kismet, KISMET_WORDS, {"PYTHONPATH": str(ROOT)}),
        "bare Textual app": ([sys.executable, "-c", BARE_APP], BARE_WORDS, {}),
    }
    if args.baseline is not None:
        commands["kismet, baseline"] = (
            kismet,
            KISMET_WORDS,
            {"PYTHONPATH": str(args.baseline.resolve())},
        )
    for command, words, env in commands.values():
        time_to_words(command, words, env)  # once unmeasured: the bytecode caches are written
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, (command, words, env) in commands.items():
            runs[name].append(time_to_words(command, words, env)[:2])
    print(
        f"to the first screen, 80x24, median of {args.runs} runs each (wall; CPU of the process):"
    )
    medians = {}
    for name, measured in runs.items():
        wall = [w for w, _ in measured]
        cpu = [c for _, c in measured]
        medians[name] = statistics.median(wall), statistics.median(cpu)
        print(
            f"  {name:17} {medians[name][0]:.3f} s (min {min(wall):.3f}, max {max(wall):.3f});"
            f"  CPU {medians[name][1]:.3f} s"
        )
    bare_wall, bare_cpu = medians["bare Textual app"]
    for name in commands:
        if name != "bare Textual app":
            wall, cpu = medians[name]
            print(
                f"  {name} / bare: {wall / bare_wall:.2f}x wall, {cpu / bare_cpu:.2f}x CPU"
                f"   (target: at most 1.5x)"
            )
    if args.imports:
        output = time_to_words(
            kismet, KISMET_WORDS, {"PYTHONPROFILEIMPORTTIME": "1", "PYTHONPATH": str(ROOT)}
        )[2]
        print("\nslowest top-level imports before kismet's first screen (cumulative, self):")
        for cumulative, own, module in slowest_imports(output):
            print(f"  {cumulative / 1000:7.1f} ms  {own / 1000:7.1f} ms  {module}")


if __name__ == "__main__":
    main()
