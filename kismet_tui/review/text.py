"""The dice review in words: the lines `kismet-replay --review` prints, the end box's lines,
and the scorecard as it stood, shared by the review screen.

Names come from the log: the caller cleans them (kismet_tui/saved_game.py does for a file).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping

from kismet_tui.rules import dice as rules

from .dice import Decision, DiceReview, SeatReview

CHOICE_WIDTH = 30
WIDTH = 88  # the text's lines are wrapped to this many columns


def card_words(card: Mapping[str, int | None]) -> str:
    """The filled boxes of a scorecard and its total: "Aces 3 · Sixes 24 · total 27"."""
    filled = [
        f"{rules.BOX_NAMES[box]} {card[box]}" for box in rules.BOXES if card.get(box) is not None
    ]
    if not filled:
        return "empty"
    return " · ".join(filled) + f" · total {rules.card_totals(card)['total']}"


def seat_summary(seat: SeatReview) -> str:
    """ "Ana: 243 points; 12.40 points given up over 41 decisions"."""
    points = f"{seat.score} points; " if seat.score is not None else ""
    count = len(seat.decisions)
    return (
        f"{seat.name}: {points}{seat.total_cost:.2f} points given up over {count} "
        f"decision{'s' if count != 1 else ''}"
    )


def end_lines(seat: SeatReview) -> list[str]:
    """The end box's lines for one seat: the game's cost, then its costliest decisions."""
    lines = [f"Your dice review: {seat.total_cost:.1f} points given up to the perfect player."]
    costliest = seat.costliest()
    if not costliest:
        lines.append("Every decision was a best one.")
    lines.extend(decision.line() for decision in costliest)
    return lines


def decision_row(decision: Decision) -> str:
    """One decision in a row: throw, dice, the choice, the best, the cost."""
    dice = " ".join(map(str, decision.dice))
    chosen = decision.chosen.words(past=True) + (" (clock)" if decision.by_clock else "")
    best = "the same" if decision.chosen == decision.best else decision.best.words()
    return f"throw {decision.throw}  {dice}  {chosen:<{CHOICE_WIDTH}} {decision.cost:5.2f}  best: {best}"


def review_lines(review: DiceReview) -> list[str]:
    """The whole review as text: per seat its summary, costliest decisions, then each turn
    with the scorecard as it stood and each decision of it."""
    lines = [
        "Dice review: each decision graded by the perfect solitaire player (the optimal",
        "table; a whole game is worth 315.10 on average). Cost: expected points given up.",
    ]
    if not review.finished:
        lines.append("This game did not finish: the review covers its decisions so far.")
    for seat in review.seats:
        lines += ["", seat_summary(seat)]
        for decision in seat.costliest():
            lines.append(f"  {decision.line()}")
        turn = None
        for decision in seat.decisions:
            if decision.turn != turn:
                turn = decision.turn
                lines += textwrap.wrap(
                    f"Turn {turn}  (card: {card_words(decision.card)})",
                    WIDTH,
                    initial_indent="  ",
                    subsequent_indent="      ",
                )
            lines.append(f"    {decision_row(decision)}")
    return lines


def review_json(review: DiceReview) -> str:
    """The review as JSON: a list of one object per decision, one a line (docs/review.md)."""
    return "[\n" + ",\n".join(json.dumps(decision) for decision in review.plain()) + "\n]"
