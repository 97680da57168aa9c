"""`kismet-host --config FILE` (server/host_config.py): every option in TOML, the command line
winning, the default file in the user's config folder, and a typo refused in words; the
systemd unit in docs/ runs a command line kismet-host accepts; shell completion made from the
parsers completes in a real bash."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from server.cli import build_parser, main
from server.host_config import ConfigError, default_path, settings
from tests.netutil import ROOT

pytestmark = [pytest.mark.timeout(60)]

EVERY_OPTION = """
bind = "127.0.0.1"
port = 7800
state-dir = "state"
bots = 4
max-per-address = 2
cap-loopback = true
keep-games = 50
tables-per-player = 1
bots-per-player = 2
ssh = true
ssh-keys = "~/keys.txt"
web = 8181
web-origin = "https://kismet.example"
door-sessions = "spawn"
max-sessions = 10
max-starting = 3
no-announce = true
log-file = "/var/log/kismet/host.log"
log-level = "WARNING"
"""


def parsed(tmp_path, text: str, *argv: str):
    path = tmp_path / "host.toml"
    path.write_text(text)
    parser = build_parser()
    parser.set_defaults(**settings(path, parser))
    return parser.parse_args(list(argv))


def test_every_option_of_the_command_line_can_be_in_the_file(tmp_path):
    args = parsed(tmp_path, EVERY_OPTION)
    assert (args.bind, args.port, args.bots, args.max_per_address) == ("127.0.0.1", 7800, 4, 2)
    assert args.state_dir == str(tmp_path / "state")  # relative: the file's own folder
    assert args.ssh_keys.endswith("/keys.txt") and "~" not in args.ssh_keys
    assert args.cap_loopback and args.no_announce
    assert (args.keep_games, args.tables_per_player, args.bots_per_player) == (50, 1, 2)
    assert args.ssh == 2222 and args.web == 8181  # true: the option's own port
    assert (args.web_origin, args.door_sessions, args.max_sessions) == (
        "https://kismet.example",
        "spawn",
        10,
    )
    assert args.max_starting == 3
    assert (args.log_file, args.log_level) == ("/var/log/kismet/host.log", "warning")
    # Every option a host has (but the one-off actions) is one the file may hold.
    in_file = {line.split(" = ")[0] for line in EVERY_OPTION.strip().splitlines()}
    options = {
        a.option_strings[-1][2:]
        for a in build_parser()._actions
        if a.option_strings and a.dest not in ("help", "version", "completion", "config", "reindex")
    }
    assert in_file == options


def test_the_command_line_wins(tmp_path):
    args = parsed(tmp_path, EVERY_OPTION, "--port", "7900", "--web", "--log-level", "debug")
    assert (args.port, args.web, args.log_level, args.bots) == (7900, 8080, "debug", 4)
    assert parsed(tmp_path, "ssh = false").ssh is None


@pytest.mark.parametrize(
    "text, words",
    [
        ("prot = 7717", "has 'prot', which is no option of kismet-host (the options it may hold: "),
        ("port = '7717'", "'port' should be a whole number, not '7717'"),
        ("bots = true", "'bots' should be a whole number, not True"),
        ("no-announce = 1", "'no-announce' should be true or false, not 1"),
        ("ssh = 'yes'", "'ssh' should be a port number, or true for 2222, not 'yes'"),
        ("door-sessions = 'hot'", "'door-sessions' should be one of warm, spawn, not 'hot'"),
        ("bind = [1]", "'bind' should be a string in quotes, not [1]"),
        ("port = ", "is not TOML"),
        ("reindex = true", "has 'reindex', which is no option"),
    ],
)
def test_a_file_with_a_mistake_is_refused_in_words(tmp_path, text, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        parsed(tmp_path, text)
    path = tmp_path / "host.toml"
    with pytest.raises(SystemExit) as exited:
        main(["--config", str(path), "--reindex", "--state-dir", str(tmp_path / "s")])
    assert exited.value.code == 2


def test_the_words_of_a_refusal(tmp_path, capsys):
    path = tmp_path / "host.toml"
    for text, words in [
        ("prot = 7717", "has 'prot', which is no option of kismet-host"),
        ("bots = true", "'bots' should be a whole number, not True"),
    ]:
        path.write_text(text)
        with pytest.raises(SystemExit):
            main(["--config", str(path)])
        err = capsys.readouterr().err
        assert "kismet-host: error: " in err and str(path) in err and words in err
        assert "Traceback" not in err


def test_a_missing_config_file_named_on_the_command_line_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--config", str(tmp_path / "nope.toml")])
    assert exited.value.code == 2
    assert f"cannot read the config file {tmp_path / 'nope.toml'}" in capsys.readouterr().err


def test_the_default_file_in_the_users_config_folder_is_read(fresh_user_folders, tmp_path):
    assert default_path() == fresh_user_folders / "config" / "kismet" / "host.toml"
    default_path().parent.mkdir(parents=True, exist_ok=True)
    default_path().write_text(f'state-dir = "{tmp_path / "from-the-file"}"\nlog-level = "error"\n')
    try:
        done = subprocess.run(
            [sys.executable, "-m", "server.cli", "--reindex"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        default_path().unlink()
    assert done.returncode == 0, done.stderr
    assert str(tmp_path / "from-the-file" / "records.sqlite3") in done.stdout


def test_the_systemd_unit_runs_a_command_line_kismet_host_accepts():
    unit = configparser.ConfigParser(strict=True, interpolation=None)
    unit.optionxform = str  # systemd's keys are case-sensitive
    unit.read(ROOT / "docs" / "kismet-host.service")
    assert unit.sections() == ["Unit", "Service", "Install"]
    service = unit["Service"]
    command = shlex.split(service["ExecStart"])
    assert command[0].endswith("/kismet-host")
    args = build_parser().parse_args(command[1:])
    assert args.config == "/etc/kismet/host.toml" and args.state_dir.startswith("/var/lib/kismet")
    assert args.log_file.startswith("/var/log/kismet/")
    assert (
        service["Type"] == "simple" and service["KillSignal"] == "SIGTERM"
    )  # the host's clean stop
    assert service["User"] == "kismet" and service["Restart"] == "on-failure"
    writable = service["ReadWritePaths"].split()
    assert any(args.state_dir.startswith(folder) for folder in writable)
    assert any(args.log_file.startswith(folder) for folder in writable)
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def complete(script: str, line: str) -> list[str]:
    """What bash offers for `line` (the cursor at its end), with `script` loaded."""
    words = line.split(" ")
    code = (
        script + f"\nCOMP_WORDS=({' '.join(shlex.quote(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n{script.split('complete -o filenames -F ')[1].split()[0]}\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "--norc", "-c", code], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")
def test_bash_completion_made_from_the_parsers_completes(tmp_path):
    host = subprocess.run(
        [sys.executable, "-m", "server.cli", "--completion", "bash"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    assert complete(host, "kismet-host --door") == ["--door-sessions"]
    assert complete(host, "kismet-host --door-sessions ") == ["warm", "spawn"]
    assert complete(host, "kismet-host --log-level w") == ["warning"]
    assert "--max-sessions" in complete(host, "kismet-host --max")
    from kismet_tui.cli import join_parser, replay_parser
    from kismet_tui.completion import script

    join = script(join_parser(), "bash")
    assert complete(join, "kismet-join --fr") == ["--fresh"]
    assert "--seats-file" not in join  # hidden options stay hidden
    replay = script(replay_parser(), "bash")
    assert complete(replay, "kismet-replay --ve") == ["--verify", "--version"]


def test_fish_and_zsh_completion_name_every_option():
    from kismet_tui.cli import local_parser
    from kismet_tui.completion import script

    fish = script(local_parser(), "fish")
    assert "complete -c kismet -l state-dir -r -F" in fish
    assert "complete -c kismet -l log-level -x -a 'debug info warning error critical'" in fish
    zsh = script(local_parser(), "zsh")
    assert zsh.startswith("autoload -U +X bashcompinit && bashcompinit\n")
    assert "complete -o filenames -F _kismet kismet" in zsh
