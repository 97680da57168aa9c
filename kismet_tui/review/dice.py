"""The dice review: each decision of a finished dice game graded by the perfect player.

    review_dice_game(header, events, V) -> DiceReview

A decision is what a seat chose with dice on the table: after throw 1 or 2, which dice to
hold and throw again (or to stop and score), after throw 3 which box to score. Each is
graded against the optimal solitaire strategy from that seat's own scorecard as it stood
(kismet_tui/solver/advice.py ranks every choice by the expected final score of the game
after it, then playing on perfectly): `expected` of the choice made, of the best one, and
the `cost`, the difference (never negative; 0 when the choice was as good as the best).

The game is rebuilt from its log by the engine; what each seat did is read from the
engine's notes (`rolled`: the dice held; `scored`: the box). A turn the host played for a
seat when a limit passed [D18] is graded too, marked `by_clock`. `V` is the optimal table
(kismet_tui/solver/table.py, exact to 315.1040); optimal_table() finds it, or None when it
is not built (a review never guesses with the heuristic one).

Reviewing a whole solo game takes some tens of milliseconds (benchmarks/review.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np

from kismet_tui.rules import HOST, apply_event, game_from_header
from kismet_tui.rules import dice as rules
from kismet_tui.rules.dice import DiceGame
from kismet_tui.rules.dice_types import View
from kismet_tui.solver import advice, table

COSTLIEST = 3  # the decisions the end box names


@dataclass(frozen=True)
class Choice:
    """One choice open at a decision: hold these faces and throw again, or score a box."""

    kind: Literal["hold", "score"]
    hold: tuple[int, ...] = ()  # "hold": the faces kept, sorted (empty: throw all five)
    box: str = ""  # "score": the box id
    points: int = 0  # "score": what the dice scored there

    def words(self, past: bool = False) -> str:
        """ "hold 6 6 6 and throw again", "score Full House 25" (past: "held 6 6 6, threw again",
        "scored ...")."""
        if self.kind == "score":
            return f"{'scored' if past else 'score'} {rules.BOX_NAMES[self.box]} {self.points}"
        if not self.hold:
            return "threw all five again" if past else "throw all five again"
        faces = " ".join(map(str, self.hold))
        return f"held {faces}, threw again" if past else f"hold {faces} and throw again"

    def plain(self) -> dict[str, Any]:
        if self.kind == "score":
            return {"kind": "score", "box": self.box, "points": self.points}
        return {"kind": "hold", "hold": list(self.hold)}


@dataclass(frozen=True)
class Decision:
    """One graded decision of one seat."""

    index: int  # the decision's place in the game, from 0 (every seat's count)
    seat: int
    turn: int  # the seat's own turn, from 1
    throw: int  # throws made before deciding: 1, 2 or 3
    dice: tuple[int, ...]  # the five dice as they lay, positions 0..4
    card: Mapping[str, int | None]  # the seat's scorecard as it stood (box -> points or None)
    chosen: Choice
    best: Choice
    expected_chosen: float  # expected final score after the choice made
    expected_best: float  # ... after the best choice
    by_clock: bool = False  # the host played it when a limit passed [D18]

    @property
    def cost(self) -> float:
        """Expected points given up; never negative, 0.0 when the choice was a best one."""
        return max(0.0, self.expected_best - self.expected_chosen)

    def line(self) -> str:
        """ "Turn 7: scored Full House 25; best was hold 6 6 6 and throw again, -4.2"."""
        clock = " (the clock played it)" if self.by_clock else ""
        return (
            f"Turn {self.turn}: {self.chosen.words(past=True)}{clock}; "
            f"best was {self.best.words()}, -{self.cost:.1f}"
        )

    def plain(self, name: str | None = None) -> dict[str, Any]:
        """The decision as JSON-ready data (docs/review.md)."""
        return {
            "seat": self.seat,
            "name": name,
            "turn": self.turn,
            "throw": self.throw,
            "dice": list(self.dice),
            "chosen": self.chosen.plain(),
            "best": self.best.plain(),
            "expected_chosen": round(self.expected_chosen, 4),
            "expected_best": round(self.expected_best, 4),
            "cost": round(self.cost, 4),
            "by_clock": self.by_clock,
        }


@dataclass(frozen=True)
class SeatReview:
    """Every decision of one seat, in order, and what they add up to."""

    seat: int
    name: str
    score: int | None  # the final total (None: the game did not end)
    decisions: tuple[Decision, ...] = field(default_factory=tuple)

    @property
    def total_cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    def costliest(self, count: int = COSTLIEST) -> list[Decision]:
        """The `count` costliest decisions that cost anything, costliest first (ties: the
        earlier first)."""
        ranked = sorted(
            (d for d in self.decisions if d.cost > 0.0), key=lambda d: -d.cost
        )  # sorted() is stable: earlier first on a tie
        return ranked[:count]


@dataclass(frozen=True)
class DiceReview:
    """The review of a whole dice game: one SeatReview per seat, in seat order."""

    seats: tuple[SeatReview, ...]
    finished: bool

    def decisions(self) -> list[Decision]:
        """Every decision of every seat, in the order they were made."""
        return sorted((d for s in self.seats for d in s.decisions), key=lambda d: d.index)

    def plain(self) -> list[dict[str, Any]]:
        """One JSON-ready object per decision, in the order they were made (docs/review.md)."""
        return [d.plain(self.seats[d.seat].name) for d in self.decisions()]


class NotADiceGame(ValueError):
    """The log is not of the dice game."""


def optimal_table() -> np.ndarray | None:
    """The optimal table from this user's cache (checked), or None when it is not built."""
    V, _problem = table.load_checked(table.cache_path())
    return V


def _choice_of(action: Mapping[str, Any], dice: Sequence[int], joker: bool) -> Choice:
    """What an advice.Choice's action (or a seat's) means, as a Choice."""
    if action["type"] == "score":
        box = action["box"]
        points = rules.score(box, list(dice), joker=joker and box not in rules.BASIC_BOXES)
        return Choice("score", box=box, points=points)
    return Choice("hold", hold=tuple(sorted(dice[p] for p in action.get("hold") or [])))


def grade(
    V: np.ndarray,
    card: Mapping[str, int | None],
    dice: Sequence[int],
    throw: int,
    chosen: Choice,
    holds_kismet: bool,
) -> tuple[Choice, float, float]:
    """(the best choice, its expected final score, the chosen one's) at one decision."""
    ranked = advice.choices(V, dict(card), list(dice), throw)
    joker = holds_kismet and len(set(dice)) == 1
    best = ranked[0]
    for option in ranked:
        if _choice_of(option.action, dice, joker) == chosen:
            return _choice_of(best.action, dice, joker), best.expected, option.expected
    raise ValueError(f"{chosen} is not a choice open at throw {throw} with {list(dice)}")


def review_dice_game(
    header: Mapping[str, Any], events: Sequence[Mapping[str, Any]], V: np.ndarray
) -> DiceReview:
    """Grade every decision of every seat of the dice game in this log (header and stamped
    events, as protocol.gamelog reads them) with the optimal table V."""
    if header.get("ruleset") != "dice":
        raise NotADiceGame(
            f"This is a game of {header.get('ruleset')}: only dice games are reviewed."
        )
    game = cast(DiceGame, game_from_header(dict(header)))
    names = [str(name) for name in header.get("seats") or []]
    found: list[list[Decision]] = [[] for _ in range(game.seats)]
    turns = [0] * game.seats
    for event in events:
        before = game.view(None)
        dice, throws = list(before["dice"]), before["rolls_used"]
        for note in apply_event(game, event):
            # (A timeout [D18] may hold both: the first throw, then the box.)
            if note["type"] == "rolled":
                seat = note["seat"]
                if note["roll"] == 1:
                    turns[seat] += 1
                else:
                    chosen = _choice_of({"type": "roll", "hold": note["held"]}, dice, False)
                    found[seat].append(
                        _graded(
                            V,
                            before,
                            seat,
                            turns[seat],
                            dice,
                            throws,
                            chosen,
                            event["seat"] == HOST,
                            found,
                        )
                    )
                dice, throws = list(note["dice"]), note["roll"]
            elif note["type"] == "scored":
                seat = note["seat"]
                joker = before["holds_kismet"][seat] and len(set(dice)) == 1
                chosen = _choice_of({"type": "score", "box": note["box"]}, dice, joker)
                found[seat].append(
                    _graded(
                        V,
                        before,
                        seat,
                        turns[seat],
                        dice,
                        throws,
                        chosen,
                        event["seat"] == HOST,
                        found,
                    )
                )
    result = game.result()
    scores = result["scores"] if result else None
    seats = tuple(
        SeatReview(
            seat,
            names[seat] if seat < len(names) else f"Seat {seat + 1}",
            scores[seat] if scores else None,
            tuple(found[seat]),
        )
        for seat in range(game.seats)
    )
    return DiceReview(seats, finished=result is not None)


def _graded(
    V: np.ndarray,
    before: View,
    seat: int,
    turn: int,
    dice: list[int],
    throws: int,
    chosen: Choice,
    by_clock: bool,
    found: list[list[Decision]],
) -> Decision:
    card = before["cards"][seat]
    best, expected_best, expected_chosen = grade(
        V, card, dice, throws, chosen, before["holds_kismet"][seat]
    )
    index = sum(len(decisions) for decisions in found)
    return Decision(
        index,
        seat,
        turn,
        throws,
        tuple(dice),
        dict(card),
        chosen,
        best,
        expected_chosen,
        expected_best,
        by_clock,
    )
