"""`kismet-host --config FILE`: every option of the command line, kept in a TOML file.

The keys are the options' long names without the dashes, the values what the option takes:

    port = 7717
    state-dir = "/var/lib/kismet"     # a relative path is the file's own folder's
    ssh = 2222                        # or true: the default port; false: no ssh
    no-announce = true
    log-level = "warning"

Without --config, the file at `default_path()` (`host.toml` in the user's config folder) is
read when it exists. Options given on the command line win over the file's. A key that is no
option, or a value of the wrong kind, is refused in words naming the file and the key, so a
typo never silently leaves a host open in a way its owner did not mean. docs/hosting.md
shows a whole file.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

FILE_NAME = "host.toml"
NOT_IN_FILE = {"help", "version", "completion", "config", "reindex"}  # one-off actions
PATHS = {"state_dir", "ssh_keys", "log_file"}  # relative to the file's folder


class ConfigError(Exception):
    """Why the file cannot be used, in words."""


def default_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("kismet")) / FILE_NAME


def settings(path: Path, parser: argparse.ArgumentParser) -> dict[str, object]:
    """The file's options as `parser`'s destinations and values, checked against it."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"the config file {path} is not TOML: {exc}") from None
    options = {
        action.option_strings[-1][2:]: action
        for action in parser._actions
        if action.option_strings
        and action.option_strings[-1].startswith("--")
        and action.dest not in NOT_IN_FILE
    }
    found: dict[str, object] = {}
    for key, value in table.items():
        action = options.get(key)
        if action is None:
            known = ", ".join(sorted(options))
            raise ConfigError(
                f"the config file {path} has '{key}', which is no option of "
                f"kismet-host (the options it may hold: {known})"
            )
        found[action.dest] = checked(path, key, action, value)
    return found


def checked(path: Path, key: str, action: argparse.Action, value: object) -> object:
    """`value` as the command line would have given it to `action`, or ConfigError."""

    def wrong(wanted: str) -> ConfigError:
        return ConfigError(f"in the config file {path}, '{key}' should be {wanted}, not {value!r}")

    if action.nargs == 0:  # a switch (store_true)
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    if action.nargs == "?" and action.const is not None:  # --ssh [PORT], --web [PORT]
        if isinstance(value, bool):
            return action.const if value else None
        if not isinstance(value, int):
            raise wrong(f"a port number, or true for {action.const}")
        return value
    if action.type is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong("a whole number")
        return value
    if not isinstance(value, str):
        raise wrong("a string in quotes")
    if callable(action.type):
        value = action.type(value)
    if action.choices is not None and value not in action.choices:
        raise wrong("one of " + ", ".join(map(str, action.choices)))
    if action.dest in PATHS:
        given = Path(str(value)).expanduser()
        return str(given if given.is_absolute() else path.parent / given)
    return value
