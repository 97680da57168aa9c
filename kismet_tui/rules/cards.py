"""The cards and the three dice of the 1997 games (`race` and `knock`), docs/rules.md section 2.

What this module owns:

- Card identity. There is one set of 11 cards (numbers 2..12) per seat; sets differ only by
  the colour of their back (`BACK_COLOURS[set]`, drawn by the TUI). A card is a plain int,
  `card = set * 11 + (number - 2)`, so the 12 of the red set (id 10) and the 12 of the blue
  set (id 21) are different cards. `card_id`, `number_of`, `set_of` convert.
- The chip table [D7]: `DEFAULT_CHIPS[i]` is the chip of number `i + 2`. A table may enter its
  own printed values through the game's `chips` option (a list of 11 whole numbers >= 0 for
  the numbers 2..12), checked by `chips_option`.
- The three-dice roll: `roll_three(rng)` draws three `rng.die()`, in order; `targets(dice)`
  are the sums of two of the three dice (3, 2 or 1 distinct values), ascending; a joker throw
  is three equal faces (`is_joker`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .base import Chance, IllegalAction, Plain
from .game_types import CardInfo
from .refusal import MALFORMED

NUMBERS = tuple(range(2, 13))
CARDS_PER_SET = len(NUMBERS)  # 11
CIRCLE_SIZE = 11  # race: the circle always holds 11 cards while a round runs

# One back colour per set, in seat order (8 sets for up to 8 players).
BACK_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")

# [D7] The rarity ladder: 7 (made by most dice pairs) is lowest, 2 and 12 highest.
DEFAULT_CHIPS = (6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6)
MAX_CHIP = 99


def card_id(set_index: int, number: int) -> int:
    """The card with `number` (2..12) from set `set_index`."""
    return set_index * CARDS_PER_SET + (number - 2)


def number_of(card: int) -> int:
    """The large number printed on a card: 2..12."""
    return card % CARDS_PER_SET + 2


def set_of(card: int) -> int:
    """Which set (and so which back colour) a card belongs to."""
    return card // CARDS_PER_SET


def back_of(card: int) -> str:
    return BACK_COLOURS[set_of(card)]


def deck(sets: int) -> list[int]:
    """Every card of `sets` sets, in id order (set 0's 2..12, then set 1's, ...)."""
    return list(range(sets * CARDS_PER_SET))


def chip(number: int, chips: Sequence[int]) -> int:
    """The chip value of a number under a chip table (list of 11, for 2..12)."""
    return chips[number - 2]


def chips_option(options: Plain) -> list[int]:
    """The `chips` table option: 11 whole numbers >= 0 for the numbers 2..12, or refuse."""
    value = options.get("chips", list(DEFAULT_CHIPS))
    if not isinstance(value, (list, tuple)) or len(value) != CARDS_PER_SET:
        raise IllegalAction(
            "The chip table must list 11 values, one for each number 2 to 12.", MALFORMED
        )
    for number, item in zip(NUMBERS, value):
        if isinstance(item, bool) or not isinstance(item, int):
            raise IllegalAction(f"The chip of the {number} must be a whole number.", MALFORMED)
        if not 0 <= item <= MAX_CHIP:
            raise IllegalAction(
                f"The chip of the {number} must be between 0 and {MAX_CHIP}.", MALFORMED
            )
    return list(value)


def roll_three(rng: Chance) -> list[int]:
    """Three dice, drawn in order with rng.die()."""
    return [rng.die(), rng.die(), rng.die()]


def targets(dice: Sequence[int]) -> list[int]:
    """The sums of two of the three dice, distinct and ascending.

    >>> targets([2, 3, 5]), targets([3, 3, 5]), targets([1, 1, 1])
    ([5, 7, 8], [6, 8], [2])
    """
    a, b, c = dice
    return sorted({a + b, a + c, b + c})


def is_joker(dice: Sequence[int]) -> bool:
    """A joker throw: three equal faces (one target only)."""
    return dice[0] == dice[1] == dice[2]


def card_info(card: int, chips: Sequence[int]) -> CardInfo:
    """A card as the screens draw it."""
    number = number_of(card)
    return {
        "id": card,
        "number": number,
        "chip": chip(number, chips),
        "set": set_of(card),
        "back": back_of(card),
    }


def say_numbers(numbers: Iterable[int]) -> str:
    """'8', '8 and 12', '5, 7 and 8': targets in words for refusals."""
    words = [str(n) for n in numbers]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def seconds_words(ms: int) -> str:
    """Milliseconds as seconds with one decimal, rounded up, without floats: 1201 -> '1.3'."""
    tenths = -(-ms // 100)
    return f"{tenths // 10}.{tenths % 10}"
