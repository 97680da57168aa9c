"""The `dice` ruleset: Kismet (1964), five coloured dice and a 15-box scorecard.

This module owns the scorecard (box ids, names, colours, what each box scores, the Basic
bonus) and the game itself (RULES.md section 1; the away default of section 5 [D18]).

Scoring API (public: bots, the solver and the UI's score preview use it)
-----------------------------------------------------------------------
- `BOXES`: the 15 box ids in scorecard order; `BASIC_BOXES` the first six, `KISMET_BOXES`
  the other nine. `BOX_NAMES`: id -> the name printed on the card.
- `COLOR`: face -> "black" (1, 6), "red" (2, 5) or "green" (3, 4).
- `score(box, dice, joker=False) -> int`: the points `dice` (five faces 1..6) earn in `box`.
  With `joker=True` the dice must be five of a kind and count as a joker [D5]: they meet
  every pattern (Full House = sum + 15, Full House Same Color = sum + 20, Flush = 35, ...).
  A joker is never scored as a Straight, so `score("straight", dice, joker=True)` is 0: in
  the game, choosing Straight with a joker is a scratch.
- `basic_bonus(total) -> int`: 0, 35, 55 or 75 for a Basic section total.
"""

from __future__ import annotations

from collections import Counter

from .base import IllegalAction

BASIC_BOXES = ("aces", "deuces", "treys", "fours", "fives", "sixes")
KISMET_BOXES = (
    "two_pair_same_color", "three_of_a_kind", "straight", "flush", "full_house",
    "full_house_same_color", "four_of_a_kind", "yarborough", "kismet",
)
BOXES = BASIC_BOXES + KISMET_BOXES

BOX_NAMES = {
    "aces": "Aces",
    "deuces": "Deuces",
    "treys": "Treys",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "two_pair_same_color": "2 Pair Same Color",
    "three_of_a_kind": "3 of a Kind",
    "straight": "Straight",
    "flush": "Flush",
    "full_house": "Full House",
    "full_house_same_color": "Full House Same Color",
    "four_of_a_kind": "4 of a Kind",
    "yarborough": "Yarborough",
    "kismet": "Kismet",
}

# The face each Basic box counts.
BOX_FACE = {box: face for face, box in enumerate(BASIC_BOXES, start=1)}

COLOR = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}

STRAIGHTS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))

# Basic section bonus tiers: (lowest total, bonus), highest first.
BONUS_TIERS = ((78, 75), (71, 55), (63, 35))


def basic_bonus(total: int) -> int:
    """The bonus a Basic section total earns: 63..70 -> 35, 71..77 -> 55, 78+ -> 75."""
    for lowest, bonus in BONUS_TIERS:
        if total >= lowest:
            return bonus
    return 0


def check_dice(dice) -> tuple[int, ...]:
    """The dice as a tuple of five faces, or IllegalAction saying what is wrong."""
    if not isinstance(dice, (list, tuple)) or len(dice) != 5:
        raise IllegalAction("Kismet is scored with exactly five dice.")
    for face in dice:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise IllegalAction(f"A die shows 1 to 6, not {face!r}.")
    return tuple(dice)


def is_five_of_a_kind(dice) -> bool:
    return len(set(dice)) == 1


def _two_pair_same_color(counts: Counter) -> bool:
    # [D2] four (or five) of one face is two pairs of the same colour.
    if max(counts.values()) >= 4:
        return True
    pairs = [face for face, n in counts.items() if n >= 2]
    return any(COLOR[a] == COLOR[b] for i, a in enumerate(pairs) for b in pairs[i + 1:])


def _full_house(counts: Counter) -> bool:
    # [D3] three of one face and two of ANOTHER: five of a kind is not a natural full house.
    return sorted(counts.values()) == [2, 3]


def _one_color(dice) -> bool:
    return len({COLOR[face] for face in dice}) == 1


def score(box: str, dice, joker: bool = False) -> int:
    """The points `dice` earn in `box`; 0 when the dice do not meet the box's pattern.

    `joker=True` scores five of a kind as a joker [D5]: it meets every pattern except the
    Straight, which a joker may only scratch (0). Raises IllegalAction for an unknown box,
    dice that are not five faces, or a joker that is not five of a kind.
    """
    if box not in BOX_NAMES:
        raise IllegalAction(f"There is no box called '{box}' on a Kismet card.")
    dice = check_dice(dice)
    if joker and not is_five_of_a_kind(dice):
        raise IllegalAction("Only five of a kind can be scored as a joker.")
    total = sum(dice)
    if box in BOX_FACE:
        # A joker in its own number box scores as usual; in another number box it is a scratch.
        face = BOX_FACE[box]
        return face * dice.count(face)
    if joker:
        return 0 if box == "straight" else _points_when_met(box, total)
    counts = Counter(dice)
    met = {
        "two_pair_same_color": _two_pair_same_color(counts),
        "three_of_a_kind": max(counts.values()) >= 3,
        "straight": tuple(sorted(dice)) in STRAIGHTS,
        "flush": _one_color(dice),
        "full_house": _full_house(counts),
        "full_house_same_color": _full_house(counts) and _one_color(dice),
        "four_of_a_kind": max(counts.values()) >= 4,
        "yarborough": True,
        "kismet": len(counts) == 1,
    }[box]
    return _points_when_met(box, total) if met else 0


def _points_when_met(box: str, total: int) -> int:
    """What a Kismet-section box pays once its pattern is met (`total` = sum of the dice)."""
    return {
        "two_pair_same_color": total,
        "three_of_a_kind": total,
        "straight": 30,
        "flush": 35,
        "full_house": total + 15,
        "full_house_same_color": total + 20,
        "four_of_a_kind": total + 25,
        "yarborough": total,
        "kismet": total + 50,
    }[box]
