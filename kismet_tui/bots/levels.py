"""The "easy", "medium" and "hard" bot levels for every game: one factory per level that
picks the game's own policy (dice_levels, race_levels, knock_levels).

A game's policy module is imported when a bot of that game is first made, not before: the
dice one loads numpy and the solver, which `kismet` would otherwise pay before its first
screen (benchmarks/startup.py)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from .decision import Policy

# factory(ruleset, seat, seed) -> the level's policy for that game.
PolicyFactory = Callable[[str, int, int], Policy[Any]]

LEVELS = ("easy", "medium", "hard")
# ruleset -> (module of kismet_tui.bots, its policy class)
_BY_RULESET = {
    "dice": ("dice_levels", "DicePolicy"),
    "race": ("race_levels", "RacePolicy"),
    "knock": ("knock_levels", "KnockPolicy"),
}


def policy_class(ruleset: str) -> Callable[[str, int, int], Policy[Any]]:
    """The policy class of `ruleset`'s bots, imported on first use."""
    if ruleset not in _BY_RULESET:
        raise KeyError(f"There is no game called '{ruleset}'.")
    module, name = _BY_RULESET[ruleset]
    found: Callable[[str, int, int], Policy[Any]] = getattr(
        import_module(f"{__package__}.{module}"), name
    )  # (level, seat, seed) -> Policy
    return found


def level_factory(level: str) -> PolicyFactory:
    """factory(ruleset, seat, seed) -> Policy, as kismet_tui.bots.POLICIES wants."""
    if level not in LEVELS:
        raise ValueError(f"no bot level {level!r}")

    def make(ruleset: str, seat: int, seed: int) -> Policy[Any]:
        return policy_class(ruleset)(level, seat, seed)

    make.__name__ = f"{level}_policy"
    return make
