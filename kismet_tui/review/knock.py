"""Knock's missed chances: what a finished knock game's log says each player let slip, read
after the game (docs/review.md, "Knock").

From the log alone (the header and the stamped events, replayed through the engine), per seat:
- `overlooked`: throws of its own it passed while holding a match (a card it could have laid);
- `missed_knocks`: throws of others the seat could have knocked on and won, and nobody did:
  the roller passed, no knock on that throw was judged good, and the seat held a match when
  the roller passed, or the roller had overlooked one (then any knock is good);
- `wrong_knocks`: its knocks judged wrong, and `wrong_cost`: the chips of the cards those
  knocks turned face up again (open cards count as minus points at the round's end, unless
  laid again);
- `too_slow`: its knocks that came after another was judged good (no cost);
- `good_knocks`: its knocks judged good.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..rules import apply_event, cards
from ..rules.knock import KnockGame
from ..rules.knock_types import RollState
from .log import played_from

Plain = Mapping[str, Any]


@dataclass
class SeatChances:
    """One seat's knock game, in missed chances."""
    seat: int
    name: str
    bot: bool
    overlooked: int = 0
    missed_knocks: int = 0
    good_knocks: int = 0
    wrong_knocks: int = 0
    wrong_cost: int = 0
    too_slow: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "bot": self.bot,
                "overlooked": self.overlooked, "missed_knocks": self.missed_knocks,
                "good_knocks": self.good_knocks, "wrong_knocks": self.wrong_knocks,
                "wrong_cost": self.wrong_cost, "too_slow": self.too_slow}


@dataclass
class _Throw:
    """What a throw needs remembering until the next one closes it."""
    roll: RollState
    overlooked: bool = False
    had_match: tuple[bool, ...] = ()   # per seat, when the roller passed


def knock_chances(header: Plain, events: Sequence[Plain]) -> list[SeatChances]:
    """Each seat's missed chances in the knock game logged as `header` + `events`."""
    game, players = played_from(header, KnockGame)
    seats = [SeatChances(seat, name, bot) for seat, name, bot in players]
    throw: _Throw | None = None
    for event in events:
        deciding = game.phase == "play" and game.stage == "decide" and game.roll is not None
        matches_before = ([bool(game._matches(s)) for s in range(game.seats)]
                          if deciding else [])
        # (each note as plain data: the figures read fields the note's type says it has)
        notes = cast(list[Plain], apply_event(game, event))
        for note in notes:
            match note.get("type"):
                case "rolled" | "round_over":
                    _close(throw, seats)
                    throw = _Throw(game.roll) if note["type"] == "rolled" and game.roll else None
                case "passed" if throw is not None and matches_before:
                    throw.had_match = tuple(matches_before)
                    if matches_before[note["seat"]]:
                        throw.overlooked = True
                        seats[note["seat"]].overlooked += 1
                case "knocked":
                    knocker = seats[note["seat"]]
                    if note["judgement"] == "good":
                        knocker.good_knocks += 1
                    elif note["judgement"] == "too_slow":
                        knocker.too_slow += 1
                    else:
                        knocker.wrong_knocks += 1
                        turned = note.get("turned_up")
                        if turned:
                            knocker.wrong_cost += cards.chip(turned["card"], game.chips)
    _close(throw, seats)
    return seats


def _close(throw: _Throw | None, seats: list[SeatChances]) -> None:
    """A throw is over (the next throw, or the round's end): count the knocks nobody made."""
    if throw is None or throw.roll["status"] != "passed" or throw.roll["good_done"]:
        return
    roller, knocked = throw.roll["roller"], set(throw.roll["knocked"])
    for seat in seats:
        if seat.seat == roller or seat.seat in knocked:
            continue
        if throw.overlooked or (throw.had_match and throw.had_match[seat.seat]):
            seat.missed_knocks += 1
