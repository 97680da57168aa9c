"""Ranked choices for one turn: which dice to hold, or which box to score, and what each is
worth in expected final score.

Works from any value table V[upper, lower] (states.py): the optimal one (table.py) gives
exact expectations; heuristic.py gives a cheap approximate one for when the optimal table
has not been built. Evaluating one state runs the turn layers of turn.py for a batch of one
(a few milliseconds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kismet_tui.rules import dice as rules
from kismet_tui.rules.dice_types import PlayerAction

from .space import KEEP_INDEX, ROLL_INDEX, sub_keeps
from .states import state_of
from .turn import best_hold, box_values, expect_rolls, turn_layers

BOX_ORDER = rules.BOXES


@dataclass(frozen=True)
class Choice:
    action: PlayerAction
    label: str
    expected: float  # expected final score of the game when making this choice, then playing on as the table does


def card_state(card: dict) -> tuple[set[str], int, bool, int]:
    """(filled boxes, Basic total, real Kismet held, points banked incl. bonus) of a card
    mapping box id -> points or None."""
    filled = {box for box, points in card.items() if points is not None}
    basic = sum(card[box] or 0 for box in rules.BASIC_BOXES)
    banked = sum(points or 0 for points in card.values()) + rules.basic_bonus(basic)
    return filled, basic, bool(card.get("kismet")), banked


def _hold_positions(dice: list[int], keep: tuple[int, ...]) -> list[int]:
    positions, wanted = [], list(keep)
    for i, face in enumerate(dice):
        if face in wanted:
            wanted.remove(face)
            positions.append(i)
    return positions


def _hold_label(keep: tuple[int, ...]) -> str:
    if not keep:
        return "Roll all five again"
    return f"Hold {' '.join(map(str, keep))}, roll again"


def _score_label(box: str, points: int) -> str:
    name = rules.BOX_NAMES[box]
    return f"Score {points} in {name}" if points else f"Scratch {name} (0)"


def choices(V: np.ndarray, card: dict, dice: list[int], rolls_used: int) -> list[Choice]:
    """Every distinct choice of the player to move, best first (ties: holds before boxes,
    then scorecard order). `dice` is in the game's positions; `rolls_used` 0..3."""
    filled, basic, real_kismet, banked = card_state(card)
    if len(filled) == len(BOX_ORDER):
        return []
    u, l = state_of(filled, basic, real_kismet)
    ua, la = np.array([u]), np.array([l])
    per_box = {b: values[:, 0] for b, values in box_values(V, ua, la)}
    last = np.max(np.stack(list(per_box.values())), axis=0)[:, None]
    if rolls_used == 0:
        _, _, start = turn_layers(last)
        return [Choice({"type": "roll", "hold": []}, "Roll the dice", banked + float(start[0]))]
    roll = tuple(sorted(dice))
    r = ROLL_INDEX[roll]
    found: list[tuple[float, int, Choice]] = []
    joker = real_kismet and len(set(roll)) == 1
    for b, box in enumerate(BOX_ORDER):
        if box in filled:
            continue
        points = rules.score(box, list(dice), joker=joker and box not in rules.BASIC_BOXES)
        found.append(
            (
                float(per_box[b][r]),
                1 + b,
                Choice({"type": "score", "box": box}, _score_label(box, points), 0.0),
            )
        )
    if rolls_used < 3:
        keeps = expect_rolls(last)  # before the 3rd roll
        if rolls_used == 1:
            keeps = expect_rolls(best_hold(keeps))  # before the 2nd roll
        for keep in sub_keeps(roll):
            if len(keep) == 5:
                continue  # holding all five is stopping: that is choosing a box
            found.append(
                (
                    float(keeps[KEEP_INDEX[keep], 0]),
                    0,
                    Choice(
                        {"type": "roll", "hold": _hold_positions(dice, keep)},
                        _hold_label(keep),
                        0.0,
                    ),
                )
            )
    found.sort(key=lambda item: (-item[0], item[1]))
    return [Choice(c.action, c.label, banked + value) for value, _, c in found]
