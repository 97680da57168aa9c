"""The host's connection limit follows what the machine holds (server/capacity.py): its file
descriptors (the soft limit raised to the hard one at start) and its memory, each connection
counted at a browser player's cost; not a fixed number."""

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from server import capacity
from server.host import Host

ROOT = Path(__file__).resolve().parent.parent
GiB = 1024**3


def test_the_limit_is_what_the_descriptors_allow_when_they_are_fewer():
    # 1,024 descriptors (Linux's default soft limit): 264 kept for logs and the rest, then 5
    # a connection (a browser player's websocket, three pipes and its connection back).
    assert capacity.connection_limit(fd_limit=1024, memory=24 * GiB) == (1024 - 264) // 5 == 152
    assert capacity.connection_limit(fd_limit=20_000, memory=24 * GiB) == 3947


def test_the_limit_is_what_half_the_memory_allows_when_that_is_less():
    # 4 GiB: half of it at the 2 MiB send buffer (and 256 KiB more) a connection may fill.
    by_memory = 2 * GiB // (2 * 1024 * 1024 + 256 * 1024)
    assert capacity.connection_limit(fd_limit=1_048_576, memory=4 * GiB) == by_memory == 910


def test_a_tiny_machine_still_takes_a_small_game_night():
    assert (
        capacity.connection_limit(fd_limit=300, memory=64 * 1024 * 1024) == capacity.MIN_CONNECTIONS
    )


def test_a_host_made_without_a_limit_takes_what_this_process_allows(tmp_path):
    host = Host(state_dir=tmp_path)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert host.max_connections == capacity.connection_limit(soft, capacity.physical_memory())
    assert Host(state_dir=tmp_path / "other", max_connections=4).max_connections == 4


def _low_soft_limit() -> None:
    """In the child before exec: the soft descriptor limit at 512, the hard one as it was."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))


@pytest.mark.network
@pytest.mark.timeout(30)
def test_kismet_host_raises_its_descriptor_limit_and_says_how_many_it_holds(tmp_path):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard <= 512:
        pytest.skip("this machine's hard descriptor limit leaves nothing to raise")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--state-dir",
            str(tmp_path / "state"),
            "--bots",
            "0",
            "--no-announce",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=_low_soft_limit,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # its first line, once it listens
        limits = Path(f"/proc/{proc.pid}/limits").read_text()
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()
    soft_now = next(
        row.split()[3] for row in limits.splitlines() if row.startswith("Max open files")
    )
    expected_soft = capacity._nr_open() if hard == resource.RLIM_INFINITY else hard
    assert int(soft_now) == expected_soft  # raised from 512 to the hard limit
    held = capacity.connection_limit(expected_soft, capacity.physical_memory())
    assert f"at most {held} connections" in line
