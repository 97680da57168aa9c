"""Knock-game bots of three strengths.

- Pre-lay: hard lays the cards that are hardest to roll (the sum of 1 / chance of each being
  a target; a 2 or a 12 alone beats three easy cards), medium the most chips, easy any
  pre-lay worth a few chips.
- Its own turn: roll once the knock window allows, lay the match with most chips (on a joker
  throw also its open card with most chips), else pass; weaker bots sometimes overlook a
  match, which the others may punish by knocking.
- Knocking: it notices a roll the roller cannot use (or a match the roller passed over)
  after a reaction time drawn per roll, and weaker bots sometimes miss it or knock wrongly.
Everything a bot draws comes from its own random.Random seeded per roll.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, product

from kismet_tui.rules import cards as card_rules
from kismet_tui.rules.knock import KnockGame, prelay_problem
from kismet_tui.rules.knock_types import KnockAction, LayAction, Roll, View

from .decision import Decision


@dataclass(frozen=True)
class KnockLevel:
    think_ms: tuple[int, int]  # roller: pause before rolling and before laying/passing
    knock_ms: tuple[int, int]  # knocker: reaction after the roll (or the roller's pass)
    overlook: float  # roller passes although holding a match
    miss: float  # knocker does not notice a good knock
    wrong: float  # knocker knocks although the roller still holds a match


KNOCK_LEVELS = {
    "easy": KnockLevel((1200, 3000), (1500, 3500), 0.10, 0.35, 0.12),
    "medium": KnockLevel((700, 1800), (800, 2000), 0.03, 0.12, 0.05),
    "hard": KnockLevel((400, 1000), (350, 900), 0.0, 0.0, 0.01),
}


@lru_cache(maxsize=1)
def target_chance() -> dict[int, Fraction]:
    """Chance that a number 2..12 is a target of a roll of three dice."""
    hits = {n: 0 for n in card_rules.NUMBERS}
    for dice in product(range(1, 7), repeat=3):
        for n in card_rules.targets(list(dice)):
            hits[n] += 1
    return {n: Fraction(h, 216) for n, h in hits.items()}


@lru_cache(maxsize=16)
def legal_prelays(chips: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every legal pre-lay as a set of numbers (ascending), under a chip table."""
    return tuple(
        combo
        for size in range(len(card_rules.NUMBERS) + 1)
        for combo in combinations(card_rules.NUMBERS, size)
        if prelay_problem(list(combo), list(chips)) is None
    )


def choose_prelay(level: str, chips: list[int], rng: random.Random) -> list[int]:
    options = legal_prelays(tuple(chips))
    chip = lambda n: card_rules.chip(n, chips)  # noqa: E731
    if level == "hard":
        odds = target_chance()
        best = max(options, key=lambda s: (sum(1 / odds[n] for n in s), -len(s), s))
    elif level == "medium":
        best = max(options, key=lambda s: (sum(chip(n) for n in s), -len(s), s))
    else:
        fair = [s for s in options if sum(chip(n) for n in s) >= 3] or list(options)
        best = rng.choice(fair)
    # The last card laid ends on top: put the most valuable there (a wrong knock turns it up).
    return sorted(best, key=lambda n: (chip(n), n))


class KnockPolicy:
    def __init__(self, level: str, seat: int, seed: int):
        self.level_name = level
        self.level = KNOCK_LEVELS[level]
        self.seat, self.seed = seat, seed
        self.seen: dict[
            tuple[int | str, ...], int
        ] = {}  # (round, roll no, status) -> when we first saw it

    def _rng(self, *key: int | str) -> random.Random:
        return random.Random(
            "-".join(map(str, ("knock", self.level_name, self.seat, self.seed) + key))
        )

    def _first_seen(self, key: tuple[int | str, ...], now_ms: int) -> int:
        return self.seen.setdefault(key, now_ms)

    def decide(self, game: KnockGame, seat: int, now_ms: int) -> Decision:
        view = game.view(seat)
        if view["phase"] == "over" or view["players"][seat]["away"]:
            return None
        chips = view["chips"]
        if view["phase"] == "prelay_commit":
            if view["players"][seat]["committed"] or not game.legal_actions(seat):
                return None
            rng = self._rng("prelay", view["round"])
            return rng.randint(*self.level.think_ms), {
                "type": "prelay",
                "cards": choose_prelay(self.level_name, chips, rng),
            }
        if view["phase"] != "play":
            return None
        chip = lambda n: card_rules.chip(n, chips)  # noqa: E731
        mine = [c["number"] for c in view["players"][seat]["open"]]
        roll = view["roll"]
        if view["turn"] == seat and view["stage"] == "roll":
            rng = self._rng("roll", view["round"], roll["no"] if roll else 0)
            ready = max(now_ms, view["roll_from"] or 0)
            return max(0, ready - now_ms) + rng.randint(*self.level.think_ms) // 3, {"type": "roll"}
        if roll is None:
            return None
        key = (view["round"], roll["no"])
        rng = self._rng("roll", *key)
        targets = set(roll["targets"])
        if view["turn"] == seat and view["stage"] == "decide":
            seen = self._first_seen(key + ("rolled",), now_ms)
            at = seen + rng.randint(*self.level.think_ms)
            matches = sorted((n for n in mine if n in targets), key=lambda n: (chip(n), n))
            if not matches or rng.random() < self.level.overlook:
                return max(0, at - now_ms), {"type": "pass"}
            action: LayAction = {"type": "lay", "card": matches[-1]}
            others = sorted((n for n in mine if n != matches[-1]), key=lambda n: (chip(n), n))
            if roll["joker"] and others:
                action["extra"] = others[-1]
            return max(0, at - now_ms), action
        return self._knock(view, seat, roll, mine, targets, rng, now_ms, key, chip)

    def _knock(
        self,
        view: View,
        seat: int,
        roll: Roll,
        mine: list[int],
        targets: set[int],
        rng: random.Random,
        now_ms: int,
        key: tuple[int, int],
        chip: Callable[[int], int],
    ) -> Decision:
        if roll["roller"] == seat or seat in roll["knocked"]:
            return None
        if any(k["judgement"] == "good" for k in roll["knocks"]):
            return None
        roller_open = {c["number"] for c in view["players"][roll["roller"]]["open"]}
        my_matches = [n for n in mine if n in targets]
        overlooked = roll["status"] == "passed" and bool(roller_open & targets)
        roller_has_none = not roller_open & targets
        level = self.level
        # Draws are made in a fixed order per roll, so a decision never flips between calls.
        notices = rng.random() >= level.miss
        blunders = rng.random() < level.wrong
        reaction = rng.randint(*level.knock_ms)
        if overlooked:
            since = self._first_seen(key + ("passed",), now_ms)
        else:
            since = self._first_seen(key + ("rolled",), now_ms)
        good = overlooked or (roller_has_none and my_matches)
        if not (good and notices) and not (
            blunders and my_matches and roll["status"] == "deciding"
        ):
            return None
        knock: KnockAction = {"type": "knock"}
        if my_matches:
            knock["card"] = max(my_matches, key=lambda n: (chip(n), n))
        return max(0, since + reaction - now_ms), knock
