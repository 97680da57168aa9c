"""A saved game read for a person: `kismet-replay FILE`, `--verify` and the recent-games list.

A game log may come from anywhere (a friend's file, a crafted one), so nothing read from it
reaches a terminal as it is, and nothing in it ends in a traceback:
- `read_game` answers every way a file can be wrong (missing, a folder, empty, not a game
  log, damaged, holding a game the engine cannot play back) with one `UnreadableGame`
  sentence; `playable` checks the whole game plays back before a screen shows it.
- every string in what it returns for playback, and every word printed about a file, goes
  through the cleaning the host gives what players type (protocol.text): no escape sequence,
  control or bidirectional character from a file reaches the screen, and a line never
  breaks or rewinds (a name holding "\\r✔ Verified" stays inside its line).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

from protocol import limits
from protocol.actions import build_event
from protocol.gamelog import GameLog, LogError, read_game_log
from protocol.plain import Plain
from protocol.text import clean_name, clean_text

from .rules.game_types import Event, Header


class UnreadableGame(Exception):
    """A file that cannot be played back or checked; `words` says why, in one line."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = clean_text(words)


def shown(path: str | os.PathLike[str]) -> str:
    """A file's name as it may be printed (a file name can hold escapes too)."""
    return clean_text(os.fspath(path))


def read_game(path: str | os.PathLike[str]) -> GameLog:
    """The log at `path`, as protocol.gamelog reads it, or UnreadableGame. The values are as
    written: for --verify, which checks them (and the signature over their bytes)."""
    where = shown(path)
    try:
        size = Path(path).stat().st_size
        if Path(path).is_dir():
            raise UnreadableGame(f"{where} is a folder, not a game log.")
        if size == 0:
            raise UnreadableGame(f"{where} is empty: it holds no game.")
        log = read_game_log(path)
    except FileNotFoundError:
        raise UnreadableGame(f"No such file: {where}") from None
    except PermissionError:
        raise UnreadableGame(f"{where} cannot be read: you may not open it.") from None
    except OSError as exc:
        raise UnreadableGame(f"{where} cannot be read: {exc.strerror or exc}.") from None
    except LogError as exc:
        words = str(exc).replace(os.fspath(path), where)
        raise UnreadableGame(f"{where} is not a Kismet game log, or is damaged: {words}.") from None
    except KeyError as exc:  # an event record without one of its fields
        raise UnreadableGame(f"{where} is damaged: an event has no {exc}.") from None
    if not isinstance(log.header.get("ruleset"), str) or not isinstance(
        log.header.get("seats"), list
    ):
        raise UnreadableGame(f"{where} is damaged: its header names no game and no players.")
    for event in log.events:
        # The host stamps host times (ms since 1970): anything else would make the replay's
        # clock wait for ever, or count back.
        if type(event["t"]) is not int or not 0 <= event["t"] <= limits.MAX_INT:
            raise UnreadableGame(
                f"{where} is damaged: event {event['seq']} has no time the host could have stamped."
            )
    return log


def playable(path: str | os.PathLike[str]) -> tuple[Header, list[Event]]:
    """(header, events) of the log at `path`, every string cleaned, once the whole game has
    been played back by the engine (so the replay screens can only show a legal game), or
    UnreadableGame. Played back whole, they are the Header and Events the engine declares."""
    from .rules import Refusal, replay

    log = read_game(path)
    try:
        header = cast(Plain, cleaned(log.header))  # (cleaning keeps the shape: a map stays one)
        header["seats"] = [clean_name(str(seat)) for seat in header["seats"]]
        # Built as the host built them (protocol/actions.py): the one parse of an action.
        ruleset = header["ruleset"]
        events = [build_event(ruleset, cast(Plain, cleaned(event))) for event in log.events]
        replay(header, events)
    except Exception as exc:  # a crafted file can hold anything: the engine says what it can
        reason = exc.words if isinstance(exc, Refusal) else f"{type(exc).__name__}: {exc}"
        raise UnreadableGame(f"{shown(path)} does not play back: {reason}") from None
    return cast(Header, header), cast(list[Event], events)


def cleaned(value: object) -> object:
    """`value` with every string in it (map keys too) cleaned; bytes and numbers as they are."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {cleaned(key): cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [cleaned(item) for item in value]
    return value
