"""The race and knock figures in words: a line per player, for the end box and for
`kismet-replay --review` (docs/review.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..widgets.glyphs import glyph
from ..widgets.names import fit
from .knock import SeatChances, knock_chances
from .race import SeatReactions, race_reactions

Plain = Mapping[str, Any]


def seconds(ms: int | None) -> str:
    """0.41 s; "-" when there is no time."""
    return "-" if ms is None else f"{ms / 1000:.2f} s"


def who(name: str, bot: bool, width: int) -> str:
    """A name cut to `width` cells and padded; a bot says so, so its times read as a bot's."""
    label = f"{name} (bot)" if bot and "bot" not in name.lower() else name
    return fit(label, width, pad=True)


def race_line(seat: SeatReactions, width: int = 12) -> str:
    """"Ana          0.41 s (best 0.25) · 1 wrong · 2 missed": the median first."""
    dot = f" {glyph('·')} "
    if not seat.reactions_ms:
        speed = "no grabs"
    else:
        assert seat.fastest_ms is not None
        speed = f"{seconds(seat.median_ms)} (best {seat.fastest_ms / 1000:.2f})"
    return f"{who(seat.name, seat.bot, width)} {speed}{dot}{seat.wrong} wrong{dot}{seat.missed} missed"


def knock_line(seat: SeatChances, width: int = 12) -> str:
    """"Bo           1 overlooked · 2 missed knocks · 1 wrong (-3)"."""
    dot = f" {glyph('·')} "
    parts = [f"{seat.overlooked} overlooked", f"{seat.missed_knocks} missed knocks"]
    wrong = f"{seat.wrong_knocks} wrong"
    if seat.wrong_cost:
        wrong += f" (-{seat.wrong_cost})"
    parts.append(wrong)
    return f"{who(seat.name, seat.bot, width)} {dot.join(parts)}"


def learned_lines(ruleset: str, header: Plain, events: Sequence[Plain],
                  width: int = 12) -> tuple[str, list[str]]:
    """A title and a line per seat for a race or knock game; ("", []) for other games (the
    dice review has its own lines) or a log the engine cannot replay."""
    try:
        if ruleset == "race":
            return ("How fast: the median time from the throw to a grab",
                    [race_line(seat, width) for seat in race_reactions(header, events)])
        if ruleset == "knock":
            return ("Chances missed",
                    [knock_line(seat, width) for seat in knock_chances(header, events)])
    except (ValueError, KeyError, TypeError):
        return "", []
    return "", []


def learned_json(ruleset: str, header: Plain, events: Sequence[Plain]) -> list[dict[str, Any]]:
    """One object per seat: the race reactions or the knock chances (docs/review.md)."""
    if ruleset == "race":
        return [seat.as_json() for seat in race_reactions(header, events)]
    if ruleset == "knock":
        return [seat.as_json() for seat in knock_chances(header, events)]
    return []
