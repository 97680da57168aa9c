"""The saved games on this computer, newest first, for `kismet-replay` without a file.

Two folders hold them: the solo games of `kismet` (the user's data folder, SOLO_DIR/games)
and the games of a `kismet-host` run by this user (its state folder, .../games). Each is
described in one line from its header: when, which game, who played, finished or not;
names as the host cleans them, so a crafted file cannot write to the terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from protocol.text import clean_name, clean_text

from .saved_game import UnreadableGame, read_game, shown


def solo_state_dir() -> Path:
    """Where `kismet` (solo play) keeps its host state: the user's data folder."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("kismet")) / "solo"


def game_folders() -> list[Path]:
    from server.cli import default_state_dir

    return [solo_state_dir() / "games", Path(default_state_dir()) / "games"]


def recent_games(folders: list[Path] | None = None, limit: int = 20) -> list[Path]:
    """The newest `limit` game logs in `folders` (default: game_folders()), newest first."""
    found = []
    for folder in folders if folders is not None else game_folders():
        try:
            found += [path for path in folder.glob("*.kismet") if path.is_file()]
        except OSError:
            continue
    found.sort(key=lambda path: (path.stat().st_mtime, path.name), reverse=True)
    return found[:limit]


def describe(path: Path) -> str:
    """One line: "2026-12-01 09:12  dice   Ana, Bot 1 (easy)  finished". Every word from the
    file (its name too) is cleaned as the host cleans names (kismet_tui/saved_game.py)."""
    try:
        log = read_game(path)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    except UnreadableGame as exc:
        return f"{shown(path.name)}  (unreadable: {exc.words})"
    except OSError:
        return f"{shown(path.name)}  (gone)"
    names = ", ".join(clean_name(str(seat)) for seat in log.header["seats"])
    state = "finished" if log.end is not None else f"unfinished, {len(log.events)} moves"
    return f"{when}  {clean_text(log.header['ruleset']):<5}  {names}  ({state})"


def choose(
    paths: list[Path], ask: Callable[[str], str] | None = None, say: Callable[[str], object] = print
) -> Path | None:
    """List `paths` numbered and ask which to play (`ask`: input); None if the answer is
    not one of them."""
    ask = ask or input
    for number, path in enumerate(paths, 1):
        say(f"{number:>3}. {describe(path)}")
    try:
        answer = ask(f"Which game? (1-{len(paths)}, enter for 1): ").strip()
    except EOFError:
        return None
    if not answer:
        return paths[0]
    if answer.isdigit() and 1 <= int(answer) <= len(paths):
        return paths[int(answer) - 1]
    say(f"'{answer}' is not a number from 1 to {len(paths)}.")
    return None
