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

`knock_throws` gives the throws where one of these happened (the review screen's, and
`--review --json`'s `throws`): the roller, the dice, the targets and who could have done what.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ..rules import apply_event, cards
from ..rules.game_types import LogHeader
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
        return {
            "seat": self.seat,
            "name": self.name,
            "bot": self.bot,
            "overlooked": self.overlooked,
            "missed_knocks": self.missed_knocks,
            "good_knocks": self.good_knocks,
            "wrong_knocks": self.wrong_knocks,
            "wrong_cost": self.wrong_cost,
            "too_slow": self.too_slow,
        }


@dataclass
class KnockMade:
    """One knock on a throw, as the engine judged it."""

    seat: int
    judgement: str  # "good", "wrong" or "too_slow"
    laid: int | None  # the card a good knock laid
    cost: int = 0  # a wrong knock: the chips of the card it turned face up again

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "judgement": self.judgement,
            "laid": self.laid,
            "cost": self.cost,
        }


@dataclass
class KnockThrow:
    """One throw of a knock game, and what could have been done on it."""

    no: int  # the throw's number in the game, from 1
    round: int
    roller: int
    dice: list[int]
    targets: list[int]
    joker: bool
    laid: list[int] = field(default_factory=list)  # what the roller laid
    passed: bool = False
    overlooked: list[int] = field(default_factory=list)  # the roller passed holding these
    holding: list[list[int]] = field(
        default_factory=list
    )  # per seat, its matches as the roller passed
    missed_by: list[int] = field(default_factory=list)  # seats that could have knocked and won
    knocks: list[KnockMade] = field(default_factory=list)

    @property
    def notable(self) -> bool:
        """Something happened on it worth learning from."""
        return bool(self.overlooked or self.missed_by or self.knocks)

    def as_json(self) -> dict[str, Any]:
        return {
            "no": self.no,
            "round": self.round,
            "roller": self.roller,
            "dice": list(self.dice),
            "targets": list(self.targets),
            "joker": self.joker,
            "laid": list(self.laid),
            "passed": self.passed,
            "overlooked": list(self.overlooked),
            "holding": [list(cards) for cards in self.holding],
            "missed_by": list(self.missed_by),
            "knocks": [knock.as_json() for knock in self.knocks],
        }


@dataclass
class _Throw:
    """What a throw needs remembering until the next one closes it."""

    roll: RollState
    told: KnockThrow
    overlooked: bool = False
    had_match: tuple[bool, ...] = ()  # per seat, when the roller passed


def knock_chances(header: LogHeader, events: Sequence[Mapping[str, Any]]) -> list[SeatChances]:
    """Each seat's missed chances in the knock game logged as `header` + `events`."""
    return read_knock(header, events)[0]


def knock_throws(header: LogHeader, events: Sequence[Mapping[str, Any]]) -> list[KnockThrow]:
    """The throws of the knock game logged as `header` + `events` where something happened
    worth learning from (an overlooked lay, a knock nobody made, any knock), in order."""
    return [throw for throw in read_knock(header, events)[1] if throw.notable]


def read_knock(
    header: LogHeader, events: Sequence[Mapping[str, Any]]
) -> tuple[list[SeatChances], list[KnockThrow]]:
    """Each seat's missed chances and every throw, read in one pass over the log."""
    game, players = played_from(header, KnockGame)
    seats = [SeatChances(seat, name, bot) for seat, name, bot in players]
    throws: list[KnockThrow] = []
    throw: _Throw | None = None
    for event in events:
        deciding = game.phase == "play" and game.stage == "decide" and game.roll is not None
        matches_before = [list(game._matches(s)) for s in range(game.seats)] if deciding else []
        # (each note as plain data: the figures read fields the note's type says it has)
        notes = cast(list[Plain], apply_event(game, event))
        for note in notes:
            match note.get("type"):
                case "rolled" | "round_over":
                    _close(throw, seats)
                    throw = None
                    if note["type"] == "rolled" and game.roll:
                        told = KnockThrow(
                            int(note["roll"]),
                            game.round,
                            int(note["seat"]),
                            list(note["dice"]),
                            list(note["targets"]),
                            bool(note["joker"]),
                        )
                        throws.append(told)
                        throw = _Throw(game.roll, told)
                case "laid" if throw is not None and note["seat"] == throw.told.roller:
                    throw.told.laid += list(note["cards"])
                case "passed" if throw is not None and matches_before:
                    throw.had_match = tuple(bool(m) for m in matches_before)
                    throw.told.passed = True
                    throw.told.holding = matches_before
                    if matches_before[note["seat"]]:
                        throw.overlooked = True
                        throw.told.overlooked = list(matches_before[note["seat"]])
                        seats[note["seat"]].overlooked += 1
                case "knocked":
                    knocker = seats[note["seat"]]
                    made = KnockMade(knocker.seat, str(note["judgement"]), note.get("laid"))
                    if note["judgement"] == "good":
                        knocker.good_knocks += 1
                    elif note["judgement"] == "too_slow":
                        knocker.too_slow += 1
                    else:
                        knocker.wrong_knocks += 1
                        turned = note.get("turned_up")
                        if turned:
                            made.cost = cards.chip(turned["card"], game.chips)
                            knocker.wrong_cost += made.cost
                    if throw is not None:
                        throw.told.knocks.append(made)
    _close(throw, seats)
    return seats, throws


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
            throw.told.missed_by.append(seat.seat)
