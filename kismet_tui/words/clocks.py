"""The clocks of a game in words, for the status line (docs/rules.md [D31]).

The engine lists the limits running (`clocks` in the dice and knock views: host times); this
says what is left of each at the host time `now_ms`, in whole seconds counted up, so a clock
reads "1 s" until it has passed. A clock that has passed is not said (the host is about to
play, or, for the knock window, knocks simply go on counting until the next throw).

    clock_words(view["clocks"], names, me=0, now_ms=...)  # "Your turn: 42 s left · Knocks: 1 s"
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .common import name_of


def left_words(ms: int) -> str:
    """Milliseconds left as a person reads them: "42 s", "1:05", "1:00:00"."""
    seconds = (max(0, ms) + 999) // 1000
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}:{seconds:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


def clock_words(
    clocks: Iterable[Mapping[str, Any]],
    names: list[str],
    me: int | None,
    now_ms: int,
    dot: str = "·",
) -> str:
    """Every running limit in a few words each, joined by " · " ("" when none runs; `dot`:
    the terminal's own spelling of the dot, kismet_tui/widgets/glyphs.py)."""
    said = []
    for clock in clocks:
        left = clock["until"] - now_ms
        if left <= 0:
            continue
        seat = clock.get("seat")
        mine = seat is not None and seat == me
        whose = "Your" if mine else f"{name_of(names, seat)}'s"
        kind = clock["kind"]
        if kind == "turn":
            said.append(f"{whose} turn: {left_words(left)} left")
        elif kind == "away":
            who = "You are" if mine else f"{name_of(names, seat)} is"
            said.append(f"{who} away: the host plays in {left_words(left)}")
        elif kind == "knock_window":
            said.append(f"Knocks: {left_words(left)}")
        elif kind == "prelay":
            said.append(f"Laying in advance: {left_words(left)} left")
    return f" {dot} ".join(said)


def idle_words(idle: bool) -> str:
    """What a player the host is playing for reads, in place of the clocks."""
    return "The host plays for you: press any key to come back." if idle else ""
