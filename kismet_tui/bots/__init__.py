"""Bots: headless players. A policy decides; `runner.run_bot` plays it over TCP like a client.

POLICIES maps a level name to a factory `factory(ruleset, seat, seed) -> Policy`, where a
Policy has `decide(game, seat, now_ms) -> (delay_ms, action) | None` (see
docs/design.md, "Bots", and `simple.py`).
"""

from __future__ import annotations

from typing import Any

from .decision import Policy
from .levels import PolicyFactory, level_factory
from .simple import GreedyPolicy, RandomPolicy

POLICIES: dict[str, PolicyFactory] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "easy": level_factory("easy"),
    "medium": level_factory("medium"),
    "hard": level_factory("hard"),
}


def make_policy(ruleset: str, level: str, seat: int, seed: int) -> Policy[Any]:
    if level not in POLICIES:
        raise KeyError(
            f"There is no bot level '{level}'. The levels are: {', '.join(sorted(POLICIES))}."
        )
    return POLICIES[level](ruleset, seat, seed)
