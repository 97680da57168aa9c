"""Race reaction times: what a finished (or running) race game's stamped log says about how
fast each player was, read after the game (docs/review.md, "Race").

Everything comes from the log: the header and the stamped events, replayed through the
engine for its notes. Nothing is stored that the log cannot rebuild.

For each seat:
- a reaction is the time from the event that showed the dice (the host's stamped timeout
  whose notes say `rolled`) to the stamp of the seat's grab in that round; `median_ms` and
  `fastest_ms` are over every grab, right or wrong;
- `wrong` counts grabs of a card that showed no target;
- `missed` counts rounds the seat ended without a right card although a card showing a
  target still lay ungrabbed when it acted (passed or grabbed a wrong card) or, for a seat
  that did nothing, when the round ended: a card that was there for it.
A wiped round (no target anywhere) gives nobody a reaction or a miss.

`race_rounds` gives the same game round by round (the review screen's, and `--review
--json`'s `rounds`): the dice, the targets, and what each seat did in each round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any, cast

from ..rules import apply_event, cards
from ..rules.game_types import LogHeader
from ..rules.race import RaceGame
from .log import played_from

Plain = Mapping[str, Any]


@dataclass
class SeatReactions:
    """One seat's race, in figures."""

    seat: int
    name: str
    bot: bool
    reactions_ms: list[int] = field(default_factory=list)  # one per grab, in round order
    right: int = 0
    wrong: int = 0
    missed: int = 0
    rounds: int = 0  # rounds with a card to take (not wiped)

    @property
    def median_ms(self) -> int | None:
        return round(median(self.reactions_ms)) if self.reactions_ms else None

    @property
    def fastest_ms(self) -> int | None:
        return min(self.reactions_ms) if self.reactions_ms else None

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "bot": self.bot,
            "grabs": len(self.reactions_ms),
            "reactions_ms": list(self.reactions_ms),
            "median_ms": self.median_ms,
            "fastest_ms": self.fastest_ms,
            "right": self.right,
            "wrong": self.wrong,
            "missed": self.missed,
            "rounds": self.rounds,
        }


@dataclass
class SeatRound:
    """What one seat did in one round: a grab, a pass or nothing."""

    seat: int
    did: str = "nothing"  # "grab", "pass" or "nothing"
    card: int | None = None  # the number on the grabbed card
    right: bool | None = None  # the grab's reveal (None before it, or without a grab)
    reaction_ms: int | None = None  # from the throw to the grab
    missed: bool = False  # it ended the round without a right card though one was there

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "did": self.did,
            "card": self.card,
            "right": self.right,
            "reaction_ms": self.reaction_ms,
            "missed": self.missed,
        }


@dataclass
class RaceRound:
    """One round of a race game: the throw and each seat's part in it."""

    round: int
    dice: list[int]
    targets: list[int]
    seats: list[SeatRound]
    wiped: bool = False  # no target anywhere: the circle was wiped, nobody could grab
    ended: bool = False  # the round ended in the log (a log cut short may end mid-round)

    def as_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "dice": list(self.dice),
            "targets": list(self.targets),
            "wiped": self.wiped,
            "ended": self.ended,
            "seats": [seat.as_json() for seat in self.seats],
        }


def _open_targets(game: RaceGame) -> set[int]:
    """The places of the circle whose card shows a target and is not grabbed yet."""
    if game.phase != "grabbing":
        return set()
    taken = {grab["pos"] for grab in game.grabs}
    return {
        pos
        for pos, card in enumerate(game.circle)
        if card is not None and pos not in taken and game._shows_target(card)
    }


def race_reactions(header: LogHeader, events: Sequence[Mapping[str, Any]]) -> list[SeatReactions]:
    """Each seat's reactions in the race game logged as `header` + `events`."""
    return read_race(header, events)[0]


def race_rounds(header: LogHeader, events: Sequence[Mapping[str, Any]]) -> list[RaceRound]:
    """The race game logged as `header` + `events`, round by round."""
    return read_race(header, events)[1]


def read_race(
    header: LogHeader, events: Sequence[Mapping[str, Any]]
) -> tuple[list[SeatReactions], list[RaceRound]]:
    """Each seat's reactions and the game round by round, read in one pass over the log."""
    game, players = played_from(header, RaceGame)
    seats = [SeatReactions(seat, name, bot) for seat, name, bot in players]
    rounds: list[RaceRound] = []
    shown_at: int | None = None  # the stamp of this round's throw
    had_a_chance: dict[int, bool] = {}  # seat -> a target lay open when it acted
    for event in events:
        seat, kind = event.get("seat"), (event.get("action") or {}).get("type")
        open_before = _open_targets(game)
        if isinstance(seat, int) and seat >= 0 and kind in ("grab", "pass"):
            had_a_chance.setdefault(seat, bool(open_before))
        # (each note as plain data: the figures read fields the note's type says it has)
        notes = cast(list[Plain], apply_event(game, event))
        grabbed_now = {note["pos"] for note in notes if note.get("type") == "grabbed"}
        for note in notes:
            match note.get("type"):
                case "rolled":
                    shown_at = int(event["t"])
                    had_a_chance = {}
                    rounds.append(
                        RaceRound(
                            int(note["round"]),
                            list(note["dice"]),
                            list(note["targets"]),
                            [SeatRound(one.seat) for one in seats],
                        )
                    )
                case "wiped" if rounds:
                    rounds[-1].wiped = rounds[-1].ended = True
                case "passed" if rounds:
                    rounds[-1].seats[note["seat"]].did = "pass"
                case "grabbed" if shown_at is not None:
                    reaction = int(event["t"]) - shown_at
                    seats[note["seat"]].reactions_ms.append(reaction)
                    if rounds:
                        rounds[-1].seats[note["seat"]] = SeatRound(
                            note["seat"], "grab", cards.number_of(note["card"]), None, reaction
                        )
                case "revealed":
                    if note["right"]:
                        seats[note["seat"]].right += 1
                    else:
                        seats[note["seat"]].wrong += 1
                    if rounds:
                        rounds[-1].seats[note["seat"]].right = bool(note["right"])
                case "round_ended":
                    open_at_end = bool(open_before - grabbed_now)
                    right = {n["seat"] for n in notes if n.get("type") == "revealed" and n["right"]}
                    for one in seats:
                        one.rounds += 1
                        if one.seat not in right and had_a_chance.get(one.seat, open_at_end):
                            one.missed += 1
                            if rounds:
                                rounds[-1].seats[one.seat].missed = True
                    if rounds:
                        rounds[-1].ended = True
    return seats, rounds
