"""Dice-game bots of three strengths, built on the solver (kismet_tui.solver).

- "hard": the optimal solitaire strategy from the solver's table. If the table is not in the
  cache yet, the first call that needs it starts its build in the background
  (solver/background.py, some seconds, once per machine user); meanwhile a game is not kept
  waiting: the bot plays the heuristic strategy, and switches to the table the moment it is
  ready.
- "medium": the heuristic table (solver/heuristic.py): a best turn against rough box values;
  now and then it settles for its second choice.
- "easy": greedy: it holds the face it has most of and scores the box that pays most now.
In a game of several players each bot plays its own card as if alone (the solitaire optimum
is a strong bot there too). Decisions are deterministic per seed: the only chance a bot uses
is its own random.Random(seed).
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Mapping

import numpy as np

from kismet_tui.rules import dice as rules
from kismet_tui.rules.dice import DiceGame
from kismet_tui.rules.dice_types import PlayerAction, View
from kismet_tui.solver import advice, background, heuristic, table

from .decision import Decision

log = logging.getLogger(__name__)

# Thinking time per decision, in ms (before `pace` scaling): (least, most).
THINK_MS = {"easy": (900, 2200), "medium": (700, 1600), "hard": (500, 1200)}
MEDIUM_SLIP = 0.12  # how often the medium bot takes its second-best choice

_optimal: np.ndarray | None = None
_optimal_missing_warned = False


def optimal_table() -> np.ndarray | None:
    """The optimal table, loaded once per process: from the cache, or from the background
    build this call starts when the cache has none (or a damaged one). None until then."""
    global _optimal, _optimal_missing_warned
    if _optimal is None:
        path = table.cache_path()
        build = background.current(path)
        if build is not None:
            _optimal = build.V  # None while it runs (or if it failed)
        else:
            _optimal, problem = table.load_checked(path)
            if _optimal is None and background.enabled():
                background.start(path)
            elif _optimal is None and not _optimal_missing_warned:
                _optimal_missing_warned = True
                log.warning(
                    "The optimal Kismet table is not built (%s) and the background build "
                    "is off: the hard bot plays the heuristic strategy. Build it with "
                    "`python -m kismet_tui.solver`.",
                    problem,
                )
    return _optimal


_preload_tried: tuple[int, int, int] | None = None  # the file (inode, size, ctime) last tried


def preload() -> None:
    """For a process that forks sessions (server/doors/door_forker.py): load the built optimal table
    now, so every session forked after shares its 23 MiB of pages instead of loading a copy of
    its own when a hint or a hard bot first wants it. Cheap when there is nothing new to load
    (one stat); never starts a build, nor a thread. A damaged file is tried once, not per fork."""
    global _optimal, _preload_tried
    if _optimal is not None:
        return
    path = table.cache_path()
    try:
        stat = path.stat()
    except OSError:
        return
    key = (stat.st_ino, stat.st_size, stat.st_ctime_ns)
    if key == _preload_tried:
        return
    _preload_tried = key
    loaded, _problem = table.load_checked(path)
    if loaded is not None:
        loaded.flags.writeable = False  # shared by every session: nobody may write to it
        _optimal = loaded


def prepare() -> None:
    """For a hard bot about to sit down: load the optimal table now, or start its build, in a
    thread of its own (loading takes a tenth of a second: not on the caller's event loop)."""
    if _optimal is None:
        threading.Thread(target=optimal_table, name="kismet-table-load", daemon=True).start()


def greedy_choice(
    card: Mapping[str, int | None], dice: list[int], rolls_used: int, holds_kismet: bool
) -> PlayerAction:
    """The easy bot's move: score a made pattern at once, else hold the most common face
    (the higher on a tie), and at the end take the box that pays most now."""
    if rolls_used == 0:
        return {"type": "roll", "hold": []}
    joker = holds_kismet and len(set(dice)) == 1
    open_boxes = [box for box in rules.BOXES if card[box] is None]
    points = {
        box: rules.score(box, dice, joker=joker and box not in rules.BASIC_BOXES)
        for box in open_boxes
    }
    best = max(open_boxes, key=lambda box: points[box])  # max keeps the first on a tie
    made = best in rules.KISMET_BOXES and best not in (
        "yarborough",
        "three_of_a_kind",
        "two_pair_same_color",
    )
    face, count = max(Counter(dice).items(), key=lambda item: (item[1], item[0]))
    # Five of a kind cannot be held for another roll: holding all five is stopping.
    if rolls_used == 3 or (made and points[best] > 0) or count == 5:
        return {"type": "score", "box": best}
    return {"type": "roll", "hold": [i for i, f in enumerate(dice) if f == face]}


class DicePolicy:
    """decide(game, seat, now_ms) -> (delay_ms, action) | None, per bots_interface.md."""

    def __init__(self, level: str, seat: int, seed: int, pace: float = 1.0):
        if level not in THINK_MS:
            raise ValueError(f"no dice level {level!r}")
        self.level, self.seat, self.pace = level, seat, pace
        self.rng = random.Random(f"dice-{level}-{seat}-{seed}")
        self.exact = False  # whether the last decision came from the optimal table

    def values(self) -> np.ndarray:
        if self.level == "hard":
            found = optimal_table()
            if found is not None:
                self.exact = True
                return found
        self.exact = False
        return heuristic.approximate_table()

    def choose(self, view: View) -> PlayerAction:
        card = view["cards"][self.seat]
        dice, rolls_used = list(view["dice"]), view["rolls_used"]
        if self.level == "easy":
            return greedy_choice(card, dice, rolls_used, view["holds_kismet"][self.seat])
        ranked = advice.choices(self.values(), card, dice, rolls_used)
        pick = 0
        if self.level == "medium" and len(ranked) > 1 and self.rng.random() < MEDIUM_SLIP:
            pick = 1
        return ranked[pick].action

    def decide(self, game: DiceGame, seat: int, now_ms: int) -> Decision:
        view = game.view(seat)
        if view["phase"] != "playing" or view["current"] != seat:
            return None
        action = self.choose(view)
        low, high = THINK_MS[self.level]
        return int(self.rng.randint(low, high) * self.pace), action
