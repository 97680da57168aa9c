"""One host per state folder: a second `kismet-host` on a folder in use is refused in words
naming the first (its pid and port); a SIGKILLed host's lock is free at once. Real
processes on 127.0.0.1, and in-process hosts, which take the same lock."""

import os
import subprocess
import sys

import pytest

from server import Host
from server.state_lock import StateFolderBusy
from tests.netutil import ROOT, free_port, host_process, running_host

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]


def second_host(state_dir) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(free_port()),
            "--state-dir",
            str(state_dir),
            "--bots",
            "0",
            "--no-announce",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_second_host_on_the_folder_is_refused_and_a_killed_ones_lock_is_free(tmp_path):
    with host_process(tmp_path, bots=0) as first:
        refused = second_host(tmp_path)
        assert refused.returncode != 0
        assert (
            f"Another kismet-host (pid {first.proc.pid}, port {first.port}) is using the "
            f"state folder {tmp_path}: stop it first, or give this one --state-dir."
            in refused.stderr
        )
        assert "Traceback" not in refused.stderr
        # The refused host touched nothing: the first still owns the folder and says so.
        assert (tmp_path / "host.lock").read_text() == f"pid {first.proc.pid}, port {first.port}\n"

        first.kill()  # SIGKILL: no clean-up at all
        first.start()  # (raises if it exits instead of listening)
        assert (tmp_path / "host.lock").read_text() == f"pid {first.proc.pid}, port {first.port}\n"


async def test_in_process_hosts_take_the_lock_too(tmp_path):
    async with running_host(tmp_path) as host:
        other = Host(state_dir=tmp_path)
        with pytest.raises(StateFolderBusy, match=f"port {host.port}"):
            await other.start("127.0.0.1", 0)
        assert other.port is None  # never listened
    # Stopped: the folder is free for the next host.
    async with running_host(tmp_path) as again:
        assert again.port is not None


async def test_the_solo_app_refuses_a_folder_in_use_before_touching_it(tmp_path, capsys):
    from kismet_tui.cli import local_main

    async with running_host(tmp_path) as host:
        (tmp_path / "tables" / "7.json").write_text("{}")  # the running host's table file
        assert local_main(["--state-dir", str(tmp_path)]) == 1
        said = capsys.readouterr().err
        assert f"port {host.port}) is using the state folder {tmp_path}" in said
        assert (tmp_path / "tables" / "7.json").exists()  # not forgotten under its feet


async def test_a_second_kismet_names_kismet_not_kismet_host(tmp_path, capsys):
    from kismet_tui.cli import local_main

    first = Host(state_dir=tmp_path)
    first.program = "kismet"  # as `kismet` runs its embedded host
    await first.start("127.0.0.1", 0)
    try:
        assert local_main(["--state-dir", str(tmp_path)]) == 1
        said = capsys.readouterr().err
        assert said.startswith(
            f"kismet: Another kismet (pid {os.getpid()}, port {first.port}) is using "
            f"the state folder {tmp_path}: quit it first"
        ), said
        assert "kismet-host" not in said
    finally:
        await first.stop()
