"""The two simple bot levels, for every game: "random" and "greedy".

Both play only legal moves (they start from the engine's `legal_actions` or its view) and are
deterministic per seed (their own `random.Random(seed)`; they are not the engine).

- random: any legal action, uniformly, after a short human-like pause (in knock it knocks
  on about one roll in five, or games would hardly end).
- greedy: the move that scores most right now, with no look-ahead. dice: roll, keep the most
  common face, and write the best box once it is worth 25 or the rolls are used up. race:
  grab the matching card with the most chips, else pass. knock: pre-lay the most chips the
  limit allows (hardest cards first), lay the match with most chips, knock when a knock is
  sure to be good.

For knock's secret pre-lay a policy returns `{"type": "prelay", "cards": [...]}`; the runner
turns it into the commit-reveal of the client library (`Client.prelay`).
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import combinations
from typing import cast

from kismet_tui.rules import cards as card_rules
from kismet_tui.rules import dice as dice_rules
from kismet_tui.rules import knock as knock_rules
from kismet_tui.rules.base import AnyGame
from kismet_tui.rules.dice import DiceGame
from kismet_tui.rules.knock import KnockGame
from kismet_tui.rules.knock_types import KnockAction, LayAction
from kismet_tui.rules.race import RaceGame

from .decision import BotAction, Decision

DICE_GOOD_ENOUGH = 25


@lru_cache(maxsize=16)
def legal_prelays(chips: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every legal pre-lay (as a set, ascending numbers) under a chip table."""
    found = []
    numbers = range(2, 13)
    for size in range(0, 12):
        any_fit = False
        for combo in combinations(numbers, size):
            if knock_rules.prelay_problem(list(combo), list(chips)) is None:
                found.append(combo)
                any_fit = True
        if not any_fit and size > 0:
            break
    return tuple(found)


class RandomPolicy:
    def __init__(self, ruleset: str, seat: int, seed: int):
        self.ruleset = ruleset
        self.seat = seat
        self.rng = random.Random(seed)

    def decide(self, game: AnyGame, seat: int, now_ms: int) -> Decision:
        knock = game if isinstance(game, KnockGame) else None  # (the knock game's state)
        if knock is not None and knock.phase == "prelay_commit":
            if knock.commits[seat] is not None or knock.defaulted[seat] or knock.away[seat]:
                return None
            choice = self.rng.choice(legal_prelays(tuple(knock.chips)))
            return self._pause(), {"type": "prelay", "cards": list(choice)}
        delay = self._pause()
        at = now_ms + delay
        if knock is not None and knock.phase == "play" and knock.turn == seat:
            # Our roll is legal only once the knock window has passed [D15]: ask for then.
            at = max(at, (knock.roll_from or 0) + 5)
        # (a player's seat is offered its game's actions only, never the host's)
        legal = cast("list[BotAction]", game.legal_actions(seat, at))
        actions: list[BotAction] = [a for a in legal if a["type"] != "reveal"]
        if self.ruleset == "knock":
            # Knocking at random on every roll undoes so many laid cards that a game would
            # hardly end; the random player knocks on about one roll in five.
            knocks: list[BotAction] = [a for a in actions if a["type"] == "knock"]
            others: list[BotAction] = [a for a in actions if a["type"] != "knock"]
            actions = others if others or self.rng.random() >= 0.2 else knocks
        if not actions:
            return None
        return at - now_ms, self.rng.choice(actions)

    def _pause(self) -> int:
        return self.rng.randint(150, 700)


class GreedyPolicy:
    def __init__(self, ruleset: str, seat: int, seed: int):
        self.ruleset = ruleset
        self.seat = seat
        self.rng = random.Random(seed)

    def decide(self, game: AnyGame, seat: int, now_ms: int) -> Decision:
        decision: Decision = getattr(self, "_" + self.ruleset)(game, seat, now_ms)
        return decision

    def _pause(self, low: int = 250, high: int = 900) -> int:
        return self.rng.randint(low, high)

    # ---- dice --------------------------------------------------------------------------------
    def _dice(self, game: DiceGame, seat: int, now_ms: int) -> Decision:
        if game.finished or game.away[seat] or game.current != seat:
            return None
        if game.rolls == 0:
            return self._pause(), {"type": "roll", "hold": []}
        joker = game.joker_now()
        card = game.cards[seat]
        open_boxes = [box for box in dice_rules.BOXES if card[box] is None]
        best = max(
            open_boxes,
            key=lambda box: (dice_rules.score(box, game.dice, joker), -dice_rules.BOXES.index(box)),
        )
        points = dice_rules.score(best, game.dice, joker)
        if game.rolls >= 3 or points >= DICE_GOOD_ENOUGH:
            return self._pause(), {"type": "score", "box": best}
        counts = Counter(game.dice)
        face = max(counts, key=lambda f: (counts[f], f))
        hold = [pos for pos, value in enumerate(game.dice) if value == face]
        if len(hold) == 5:
            return self._pause(), {"type": "score", "box": best}
        return self._pause(), {"type": "roll", "hold": hold}

    # ---- race --------------------------------------------------------------------------------
    def _race(self, game: RaceGame, seat: int, now_ms: int) -> Decision:
        if not game.legal_actions(seat):
            return None
        view = game.view(seat)
        matches = [
            c for c in view["circle"] if c is not None and c["target"] and c["grabbed_by"] is None
        ]
        if not matches:
            return self._pause(400, 1200), {"type": "pass"}
        best = max(matches, key=lambda c: (c["chip"], c["number"]))
        return self._pause(300, 1100), {"type": "grab", "card": best["pos"], "id": best["id"]}

    # ---- knock -------------------------------------------------------------------------------
    def _knock(self, game: KnockGame, seat: int, now_ms: int) -> Decision:
        if game.away[seat] or game.phase == "over":
            return None
        if game.phase == "prelay_commit":
            if game.commits[seat] is not None or game.defaulted[seat]:
                return None
            chips = game.chips
            best = max(
                legal_prelays(tuple(chips)),
                key=lambda s: (sum(card_rules.chip(n, chips) for n in s), -len(s)),
            )
            return self._pause(), {"type": "prelay", "cards": list(best)}
        if game.phase != "play":
            return None
        view = game.view(seat)
        mine = {c["number"] for c in view["players"][seat]["open"]}
        roll = view["roll"]
        if view["turn"] == seat and view["stage"] == "roll":
            wait = max(0, (view["roll_from"] or 0) - now_ms)
            return max(self._pause(), wait + 5), {"type": "roll"}
        if view["turn"] == seat and view["stage"] == "decide" and roll is not None:
            targets = set(roll["targets"])
            matches = sorted(mine & targets, key=lambda n: (card_rules.chip(n, game.chips), n))
            if not matches:
                return self._pause(), {"type": "pass"}
            card = matches[-1]
            action: LayAction = {"type": "lay", "card": card}
            others = sorted(mine - {card}, key=lambda n: (card_rules.chip(n, game.chips), n))
            if roll["joker"] and others:
                action["extra"] = others[-1]
            return self._pause(), action
        if roll is None or roll["roller"] == seat or seat in roll["knocked"]:
            return None
        if any(k["judgement"] == "good" for k in roll["knocks"]):
            return None
        targets = set(roll["targets"])
        roller_open = {c["number"] for c in view["players"][roll["roller"]]["open"]}
        my_matches = mine & targets
        overlooked = roll["status"] == "passed" and roller_open & targets
        roller_done = roll["status"] != "deciding" and not roller_open & targets
        if overlooked or (roller_done and my_matches):
            knock: KnockAction = {"type": "knock"}
            if my_matches:
                knock["card"] = max(my_matches, key=lambda n: (card_rules.chip(n, game.chips), n))
            return self._pause(100, 500), knock
        return None
