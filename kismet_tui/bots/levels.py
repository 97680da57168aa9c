"""The "easy", "medium" and "hard" bot levels for every game: one factory per level that
picks the game's own policy (dice_levels, race_levels, knock_levels)."""

from __future__ import annotations

from .dice_levels import DicePolicy
from .knock_levels import KnockPolicy
from .race_levels import RacePolicy

LEVELS = ("easy", "medium", "hard")
_BY_RULESET = {"dice": DicePolicy, "race": RacePolicy, "knock": KnockPolicy}


def level_factory(level: str):
    """factory(ruleset, seat, seed) -> Policy, as kismet_tui.bots.POLICIES wants."""
    if level not in LEVELS:
        raise ValueError(f"no bot level {level!r}")

    def make(ruleset: str, seat: int, seed: int):
        if ruleset not in _BY_RULESET:
            raise KeyError(f"There is no game called '{ruleset}'.")
        return _BY_RULESET[ruleset](level, seat, seed)

    make.__name__ = f"{level}_policy"
    return make
