"""A log's game at its start, and who sat where: what every review begins with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from ..rules import game_from_header
from ..rules.base import AnyGame

GameT = TypeVar("GameT", bound=AnyGame)


def seat_names(header: Mapping[str, Any]) -> tuple[list[str], list[bool]]:
    """The seats' names and which are bots, from a log header (`seats` names, `players` ids:
    a bot's is "bot:<level>")."""
    seats = header.get("seats")
    count = seats if isinstance(seats, int) else len(seats or [])
    names = (
        [str(name) for name in seats]
        if isinstance(seats, list)
        else [f"Seat {s + 1}" for s in range(count)]
    )
    players = header.get("players")
    bots = [isinstance(p, str) and p.startswith("bot:") for p in (players or [None] * count)]
    return names, bots


def played_from(
    header: Mapping[str, Any], kind: type[GameT]
) -> tuple[GameT, list[tuple[int, str, bool]]]:
    """The game `header` starts, which must be a `kind`, and (seat, name, is a bot) per seat."""
    game = game_from_header(dict(header))
    if not isinstance(game, kind):
        raise ValueError(f"not a {kind.RULESET} log: {header.get('ruleset')!r}")
    names, bots = seat_names(header)
    return game, [(seat, names[seat], bots[seat]) for seat in range(game.seats)]
