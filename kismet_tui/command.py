"""What the four commands (kismet, kismet-join, kismet-replay, kismet-host) do alike.

- `--version` prints the installed package's version (kismet_tui/version.py).
- `--log-file FILE` and `--log-level LEVEL`: every command logs to a rotating file, by default
  `<command>.log` in the user's log folder (platformdirs user_log_dir). A level that is not
  one gets a line of words from argparse (exit 2), never a traceback.
- `--completion bash|zsh|fish` prints a shell completion script made from the command's own
  parser (kismet_tui/completion.py).
- `honest_exit(command)` wraps a command's main: an error nobody caught ends the command
  with exit 1, one short line naming the error and the log file, and the traceback in that
  file; a command that needs a terminal and has none (kismet_tui/needs_terminal.py) says so
  and exits 2.

The drawing commands log to the file only (a line on stderr would tear their screen);
`kismet-host` logs to stderr too, as a service's log is read there.
"""

from __future__ import annotations

import argparse
import functools
import logging
import logging.handlers
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .needs_terminal import NoTerminal
from .version import version

LEVELS = ("debug", "info", "warning", "error", "critical")
LOG_BYTES = 1_000_000  # a log file is rotated past this size...
LOG_BACKUPS = 3  # ...keeping this many older ones (<command>.log.1 to .3)
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

F = TypeVar("F", bound=Callable[..., int])

_log_path: Path | None = None  # where this process logs, once start_logging has run
_started = False  # start_logging has run (with a file or not)
_handlers: list[logging.Handler] = []  # what start_logging added to the root logger
_level_before: int | None = None  # the root logger's level before it


def default_log_file(command: str) -> Path:
    from platformdirs import user_log_dir

    return Path(user_log_dir("kismet")) / f"{command}.log"


def add_common_options(parser: argparse.ArgumentParser, command: str) -> None:
    """--version, --log-file, --log-level and --completion on `parser`."""
    parser.add_argument("--version", action=VersionAction, help="print the version and exit")
    parser.add_argument(
        "--log-file",
        default=None,
        metavar="FILE",
        help=f"write the log here (default: {command}.log in your log folder, "
        f"{default_log_file(command).parent}; rotated at 1 MB, 3 kept)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        type=str.lower,
        choices=LEVELS,
        metavar="LEVEL",
        help="the least important records logged: debug, info (the default), "
        "warning, error or critical",
    )
    parser.add_argument(
        "--completion",
        action=CompletionAction,
        choices=("bash", "zsh", "fish"),
        help="print a shell completion script for bash, zsh or fish, and exit "
        "(docs/hosting.md says where to put it)",
    )


class VersionAction(argparse.Action):
    """--version: the command and its version, read only when asked (a door session's
    process, forked under a tight memory limit, never imports what reading it needs)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)  # type: ignore[arg-type]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit(0)


class CompletionAction(argparse.Action):
    """--completion SHELL: print the script for the parser it belongs to, and exit 0."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=None, default=None, metavar="SHELL", **kwargs)  # type: ignore[arg-type]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from .completion import script

        print(script(parser, str(values)), end="")
        parser.exit(0)


class QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log file whose failures stay quiet: a record that cannot be written (a full
    disk; on Windows, a rotation while another kismet-join holds the file) is dropped, never
    printed over the screen as logging's "--- Logging error ---" would."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def start_logging(
    command: str,
    args: argparse.Namespace | None = None,
    *,
    to_stderr: bool = False,
    to_file: bool = True,
) -> Path | None:
    """Log the whole process (the embedded host's records too) to the command's file at the
    level asked; returns the file, or None when it cannot be written (said on stderr) or is
    not wanted (`to_file` false: a door session, see cli.join_main)."""
    global _log_path, _level_before, _started
    stop_logging()  # (a command run again in one process: a test)
    _started = True
    level = str(getattr(args, "log_level", None) or "info")
    given = getattr(args, "log_file", None)
    path = Path(given) if given else default_log_file(command)
    root = logging.getLogger()
    _level_before = root.level
    root.setLevel(level.upper())
    if not to_file:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = QuietFileHandler(
            path, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
        )
    except OSError as exc:
        print(
            f"{command}: cannot write the log file {path}: {exc.strerror or exc}. "
            f"Going on without it (--log-file picks another).",
            file=sys.stderr,
        )
    else:
        handler.setFormatter(logging.Formatter(FORMAT))
        root.addHandler(handler)
        _handlers.append(handler)
        _log_path = path
    # (The file only: on stderr the command's own first lines come first.)
    logging.getLogger("kismet").info(
        "%s %s started: %s", command, version(), " ".join(sys.argv[1:])
    )
    if to_stderr:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(stream)
        _handlers.append(stream)
    return _log_path


def stop_logging() -> None:
    """Take back what start_logging added (the files flushed and closed)."""
    global _log_path, _level_before, _started
    root = logging.getLogger()
    while _handlers:
        handler = _handlers.pop()
        root.removeHandler(handler)
        handler.close()
    if _level_before is not None:
        root.setLevel(_level_before)
    _log_path, _level_before, _started = None, None, False


def crashed(command: str, error: BaseException | None = None) -> int:
    """Say in one line that `command` stopped on an error and where its traceback is (logged
    here when `error` is given: an app's own errors were logged as they happened); 1."""
    if not _started:  # (stopped before its options were read)
        start_logging(command)
    if error is not None:
        logging.getLogger("kismet").error("%s stopped on an error", command, exc_info=error)
    what = f" ({type(error).__name__}: {error})" if error is not None else ""
    where = f" The details are in {_log_path}." if _log_path else ""
    print(f"{command}: stopped on an unexpected error{what}.{where}", file=sys.stderr)
    return 1


def honest_exit(command: str) -> Callable[[F], F]:
    """Wrap a command's main: exit 1 with words after an uncaught error, 2 without a terminal."""

    def wrap(main: F) -> F:
        @functools.wraps(main)
        def run(*args: object, **kwargs: object) -> int:
            try:
                return main(*args, **kwargs)
            except MemoryError:  # (a door session's own end: kismet_tui/door_child.py)
                raise
            except NoTerminal as refusal:
                print(f"{command}: {refusal}", file=sys.stderr)
                return 2
            except Exception as error:
                return crashed(command, error)
            finally:
                stop_logging()

        return run  # type: ignore[return-value]

    return wrap
