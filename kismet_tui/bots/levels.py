"""The "easy", "medium" and "hard" bot levels for every game: one factory per level that
picks the game's own policy (dice_levels, race_levels, knock_levels).

A game's policy module is imported when a bot of that game is first made, not before: the
dice one loads numpy and the solver, which `kismet` would otherwise pay before its first
screen (benchmarks/startup.py)."""

from __future__ import annotations

from importlib import import_module

LEVELS = ("easy", "medium", "hard")
# ruleset -> (module of kismet_tui.bots, its policy class)
_BY_RULESET = {"dice": ("dice_levels", "DicePolicy"), "race": ("race_levels", "RacePolicy"),
               "knock": ("knock_levels", "KnockPolicy")}


def policy_class(ruleset: str):
    """The policy class of `ruleset`'s bots, imported on first use."""
    if ruleset not in _BY_RULESET:
        raise KeyError(f"There is no game called '{ruleset}'.")
    module, name = _BY_RULESET[ruleset]
    return getattr(import_module(f"{__package__}.{module}"), name)


def level_factory(level: str):
    """factory(ruleset, seat, seed) -> Policy, as kismet_tui.bots.POLICIES wants."""
    if level not in LEVELS:
        raise ValueError(f"no bot level {level!r}")

    def make(ruleset: str, seat: int, seed: int):
        return policy_class(ruleset)(level, seat, seed)

    make.__name__ = f"{level}_policy"
    return make
