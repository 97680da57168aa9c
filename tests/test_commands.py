"""The four commands behave as commands (issue 31 points 3 to 5 and 9), run as real processes:
`--version` from the package's one version, `python -m kismet_tui`, honest exit codes (1 after
a crash, with a line naming the log file that holds the traceback; 1 when the host cannot be
reached; 2 and words for a bad option or without a terminal that can draw), and each command's
rotating log file, the embedded host's records included.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.netutil import ROOT, free_port
from tests.sshutil import OnPty
from tests.uiutil import write_log

pytestmark = [pytest.mark.timeout(120)]

MAINS = {
    "kismet": "kismet_tui.cli:local_main",
    "kismet-join": "kismet_tui.cli:join_main",
    "kismet-replay": "kismet_tui.cli:replay_main",
    "kismet-host": "server.cli:main",
}
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
CTRL_Q = b"\x11"


def run(
    command: str, *args: str, env: dict[str, str] | None = None, before: str = ""
) -> subprocess.CompletedProcess[str]:
    """`command` (its entry point, as the installed script calls it) in a new process with
    stdout and stderr on pipes."""
    module, function = MAINS[command].split(":")
    code = f"import sys; {before}\nfrom {module} import {function} as main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
    )


@pytest.mark.parametrize("command", sorted(MAINS))
def test_every_command_prints_the_packages_version(command):
    done = run(command, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{command} {VERSION}\n"


def test_python_m_kismet_tui_is_kismet():
    done = subprocess.run(
        [sys.executable, "-m", "kismet_tui", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == f"kismet {VERSION}\n", done.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "kismet_tui", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert helped.stdout.startswith("usage: kismet ") and "against bots" in helped.stdout


@pytest.mark.parametrize("command", sorted(MAINS))
def test_a_log_level_that_is_none_gets_words_not_a_traceback(command):
    done = run(command, "--log-level", "foo")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "argument --log-level: invalid choice: 'foo'" in done.stderr
    helped = run(command, "--help").stdout
    assert "--log-file FILE" in helped and "--log-level LEVEL" in helped and "debug, info" in helped


@pytest.fixture
def replay_file(tmp_path):
    path = tmp_path / "game.kismet"
    write_log(path, "race", ["Ana", "Bo"], b"commands", {"countdown_ms": 200, "reveal_ms": 100})
    return path


def test_a_crash_outside_the_app_exits_1_naming_the_log_that_holds_it(tmp_path, replay_file):
    log = tmp_path / "replay.log"
    done = run(
        "kismet-replay",
        str(replay_file),
        "--log-file",
        str(log),
        before=(
            "import kismet_tui.saved_game as s\n"
            "def broken(path): raise RuntimeError('the disk fell off')\n"
            "s.playable = broken"
        ),
    )
    assert done.returncode == 1
    assert done.stderr == (
        f"kismet-replay: stopped on an unexpected error (RuntimeError: the disk "
        f"fell off). The details are in {log}.\n"
    )
    written = log.read_text()
    assert "Traceback" in written and "RuntimeError: the disk fell off" in written


def test_a_crash_inside_the_app_exits_1_naming_the_log_that_holds_it(tmp_path, replay_file):
    log = tmp_path / "replay.log"
    term = OnPty(
        "kismet-replay",
        [str(replay_file), "--log-file", str(log)],
        before=(
            "from kismet_tui.app import KismetApp\n"
            "def broken(self, size=None): raise RuntimeError('a screen too far')\n"
            "KismetApp.check_size = broken"
        ),
    )
    try:
        assert term.gone_within(30), term.output[-600:]
    finally:
        term.kill()
    assert os.WIFEXITED(term.status) and os.WEXITSTATUS(term.status) == 1
    assert (
        f"kismet-replay: stopped on an unexpected error. The details are in {log}.".encode()
        in term.output
    )
    written = log.read_text()
    assert "the app stopped on an error" in written and "RuntimeError: a screen too far" in written


def test_kismet_join_exits_1_when_the_host_cannot_be_reached(tmp_path):
    port = free_port()  # nothing listens there
    term = OnPty("kismet-join", [f"127.0.0.1:{port}", "--log-file", str(tmp_path / "join.log")])
    try:
        term.read_until(b"Could not reach")
        term.type(CTRL_Q)
        assert term.gone_within(15), term.output[-600:]
    finally:
        term.kill()
    assert os.WIFEXITED(term.status) and os.WEXITSTATUS(term.status) == 1
    assert (
        f"kismet-join: Could not reach a host at 127.0.0.1:{port}. Is kismet-host running there?"
    ).encode() in term.output


@pytest.mark.parametrize("command", ["kismet", "kismet-join", "kismet-replay"])
def test_without_a_terminal_the_drawing_commands_say_so_and_exit_2(command, tmp_path, replay_file):
    args = {
        "kismet": ["--state-dir", str(tmp_path / "solo")],
        "kismet-join": ["127.0.0.1:9"],
        "kismet-replay": [str(replay_file)],
    }[command]
    piped = run(command, *args)  # stdout is a pipe: the screen would go into it, forever
    assert piped.returncode == 2
    assert piped.stdout == ""
    assert piped.stderr.endswith(
        f"{command}: its output is not a terminal (a file or a pipe), "
        f"and it draws a screen there. Run it in a terminal window.\n"
    )
    dumb = OnPty(command, args, before="import os; os.environ['TERM'] = 'dumb'")
    try:
        assert dumb.gone_within(30), dumb.output[-600:]
    finally:
        dumb.kill()
    assert os.WIFEXITED(dumb.status) and os.WEXITSTATUS(dumb.status) == 2
    assert b"this terminal cannot draw a screen (TERM is dumb)" in dumb.output
    assert b"\x1b[" not in dumb.output  # not one escape code


def test_kismet_replay_verify_needs_no_terminal(tmp_path, replay_file):
    done = run("kismet-replay", "--verify", str(replay_file), env={"TERM": "dumb"})
    assert done.returncode in (0, 1, 2) and "not a terminal" not in done.stderr
    assert "TERM is dumb" not in done.stderr


def test_kismet_logs_the_embedded_hosts_records_to_its_file(tmp_path):
    log = tmp_path / "kismet.log"
    term = OnPty(
        "kismet",
        [
            "--state-dir",
            str(tmp_path / "solo"),
            "--name",
            "Ana",
            "--log-file",
            str(log),
            "--log-level",
            "debug",
        ],
    )
    try:
        term.read_until(b"Create")
        term.type(CTRL_Q)
        assert term.gone_within(15), term.output[-600:]
    finally:
        term.kill()
    assert os.WIFEXITED(term.status) and os.WEXITSTATUS(term.status) == 0
    written = log.read_text()
    assert f"kismet {VERSION} started" in written
    assert " INFO kismet.host: listening on 127.0.0.1:" in written  # the embedded host's


def test_each_command_logs_to_its_own_file_in_the_users_log_folder(fresh_user_folders, tmp_path):
    from kismet_tui.command import default_log_file

    folder = fresh_user_folders / "state" / "kismet" / "log"  # platformdirs user_log_dir
    assert default_log_file("kismet-host") == folder / "kismet-host.log"
    done = run("kismet-host", "--state-dir", str(tmp_path / "host"), "--reindex")
    assert done.returncode == 0, done.stderr
    assert f"kismet-host {VERSION} started: --state-dir" in (folder / "kismet-host.log").read_text()


def test_the_log_file_rotates(tmp_path):
    from kismet_tui import command

    log = tmp_path / "big.log"
    import argparse
    import logging

    command.start_logging("kismet-test", argparse.Namespace(log_file=str(log), log_level="info"))
    try:
        for _ in range(command.LOG_BYTES // 1000 * 3):
            logging.getLogger("kismet.test").info("x" * 1000)
    finally:
        command.stop_logging()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "big.log",
        "big.log.1",
        "big.log.2",
        "big.log.3",
    ]
    assert all(p.stat().st_size <= command.LOG_BYTES + 2000 for p in tmp_path.iterdir())


def test_a_log_file_that_cannot_be_written_is_said_and_the_command_goes_on(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    done = run(
        "kismet-host",
        "--state-dir",
        str(tmp_path / "host"),
        "--reindex",
        "--log-file",
        str(blocked / "host.log"),
    )
    assert done.returncode == 0
    assert f"kismet-host: cannot write the log file {blocked / 'host.log'}" in done.stderr


def test_the_version_without_an_install_is_pyprojects(tmp_path):
    from kismet_tui import version

    assert version.version() == VERSION
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "someone-else"\nversion = "9.9"\n')
    assert version.source_version(other) is None  # another project's: the metadata decides
    assert version.source_version(tmp_path / "none.toml") is None
    assert Path(version.__file__).parent.parent / "pyproject.toml" == version.PYPROJECT
