"""Race-game bots of three strengths: a reaction-time model of a human grabbing a card.

Each round a bot draws, from its own seeded random.Random, how long after the roll it
reaches for a card and whether it misreads the dice and grabs a wrong one. If the card it
aimed at is taken first, it needs a moment to aim again. Strong bots are quicker, rarely
wrong, and go for the card with most chips; weak ones grab the first match they see.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TypedDict

from kismet_tui.rules.race import RaceGame
from kismet_tui.rules.race_types import PlayerAction

from .decision import Decision


@dataclass(frozen=True)
class RaceLevel:
    reaction_ms: tuple[int, int]  # delay after the roll before grabbing, drawn per round
    wrong: float  # chance per round of grabbing a card that shows no target
    best_chip: float  # chance per round of going for the most chips (else any match)
    reaim: tuple[float, float]  # extra delay, as a share of the reaction, after losing a card


RACE_LEVELS = {
    "easy": RaceLevel((2500, 5000), 0.10, 0.2, (0.4, 0.8)),
    "medium": RaceLevel((1200, 3000), 0.04, 0.7, (0.3, 0.6)),
    "hard": RaceLevel((500, 1500), 0.01, 1.0, (0.2, 0.4)),
}


class Plan(TypedDict):
    """What a race bot aims at this round, and when it acts."""

    round: int
    at: int
    pos: int  # -1 for a pass
    id: int | None
    attempt: int
    action: PlayerAction


class RacePolicy:
    def __init__(self, level: str, seat: int, seed: int):
        self.level_name = level
        self.level = RACE_LEVELS[level]
        self.seat, self.seed = seat, seed
        self.plan: Plan | None = None  # for the current round

    def _round_rng(self, round_no: int, attempt: int) -> random.Random:
        return random.Random(f"race-{self.level_name}-{self.seat}-{self.seed}-{round_no}-{attempt}")

    def decide(self, game: RaceGame, seat: int, now_ms: int) -> Decision:
        if not game.legal_actions(seat):
            return None
        view = game.view(seat)
        round_no = view["round"]
        deadline = view["deadline"]
        if deadline is None:  # (grabbing, the only time a grab is legal, has one)
            return None
        rolled_at = deadline - game.options["round_limit_ms"]
        free = [c for c in view["circle"] if c is not None and c["grabbed_by"] is None]
        plan = self.plan if self.plan and self.plan["round"] == round_no else None
        if plan and any(c["pos"] == plan["pos"] and c["id"] == plan["id"] for c in free):
            return max(0, plan["at"] - now_ms), plan["action"]
        attempt = plan["attempt"] + 1 if plan else 0
        rng = self._round_rng(round_no, attempt)
        level = self.level
        reaction = rng.randint(*level.reaction_ms)
        if plan:  # the card we reached for was taken: aim again
            at = max(now_ms, plan["at"]) + int(reaction * rng.uniform(*level.reaim))
        else:
            at = rolled_at + reaction
        matches = [c for c in free if c["target"]]
        misses = [c for c in free if not c["target"]]
        if misses and (not matches or attempt == 0) and rng.random() < level.wrong:
            card = rng.choice(misses)
        elif not matches:
            self.plan = {
                "round": round_no,
                "at": at,
                "pos": -1,
                "id": None,
                "attempt": attempt,
                "action": {"type": "pass"},
            }
            return max(0, at - now_ms), {"type": "pass"}
        elif rng.random() < level.best_chip:
            card = max(matches, key=lambda c: (c["chip"], c["number"]))
        else:
            card = rng.choice(matches)
        action: PlayerAction = {"type": "grab", "card": card["pos"], "id": card["id"]}
        self.plan = {
            "round": round_no,
            "at": at,
            "pos": card["pos"],
            "id": card["id"],
            "attempt": attempt,
            "action": action,
        }
        return max(0, at - now_ms), action
