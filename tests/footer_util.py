"""What the footer's promise means, for the tests that check it: the keys behind each footer
entry, the entries the engine's legal moves call for, each screen's game keys and the
referee's verdict on a move (tests/test_footer_mapping.py checks the promise on the pure
mapping, kismet_tui/screens/offers.py, over thousands of states; tests/test_ui_footer_walk.py
checks that the app pressed through Pilot does what the mapping says)."""

from __future__ import annotations

import copy
from collections.abc import Mapping

from textual.actions import parse as parse_action

from kismet_tui.rules import IllegalAction
from kismet_tui.rules.knock import prelay_commitment, prelay_problem
from kismet_tui.screens.dice import DiceScreen
from kismet_tui.screens.knock import KnockScreen
from kismet_tui.screens.offers import GAME_ACTIONS
from kismet_tui.screens.race import KEYS as RACE_KEYS
from kismet_tui.screens.race import RaceScreen
from tests.scripted import ScriptedClient

SCREENS = {"dice": DiceScreen, "race": RaceScreen, "knock": KnockScreen}
KNOCK_KEY_OF = {10: "0", 11: "minus", 12: "equals_sign"}


def game_bindings(ruleset: str) -> list[tuple[str, str, tuple, bool]]:
    """The screen's game keys, in the footer's order: (key, action name, its parameters,
    whether the footer shows it), one row per key of a "up,k" style list."""
    rows = []
    for binding in SCREENS[ruleset].BINDINGS:
        _namespace, name, params = parse_action(binding.action)
        if name not in GAME_ACTIONS[ruleset]:
            continue
        for key in binding.key.split(","):
            rows.append((key.strip(), name, params, binding.show))
    return rows


def keys_behind(
    entry: str,
    ruleset: str,
    view: Mapping,
    seat: int = 0,
    chosen: tuple[int, ...] = (),
    joker_first: int | None = None,
) -> list[str]:
    """The keys one footer entry stands for: "1-5" for five keys, "a-k" for the letters of
    the cards on the table that nobody grabbed yet, "2-9 0 - =" for your cards that can be
    played now (while choosing a pre-lay every open card, but those that would carry the
    cards picked (`chosen`) over the chip limit, which say so; else those matching the
    throw; once a joker throw's first card is picked, any other: its second card)."""
    if ruleset == "dice" and entry == "1":
        return list("12345")
    if ruleset == "dice" and entry == "up":
        return ["up", "down", "k", "j"]
    if ruleset == "race" and entry == "a":
        taken = {grab["pos"] for grab in view["grabs"]}
        return [
            RACE_KEYS[card["pos"]] for card in view["circle"] if card and card["pos"] not in taken
        ]
    if ruleset == "knock" and entry == "2":
        mine = [card["number"] for card in view["players"][seat]["open"]]
        if view["phase"] == "prelay_commit":
            chips = view.get("chips") or []
            mine = [n for n in mine if n in chosen or prelay_problem([*chosen, n], chips) is None]
        else:
            targets = (view.get("roll") or {}).get("targets") or []
            if joker_first is not None:  # the second card of a joker throw: any other one
                targets = [n for n in mine if n != joker_first]
            mine = [n for n in mine if n in targets]
        return [KNOCK_KEY_OF.get(n, str(n)) for n in mine]
    return [entry]


# The footer entry that stands for each kind of move the engine may list for the seat (None:
# no key, the client sends it by itself).
ENTRY_FOR_MOVE: dict[str, dict[str, str | None]] = {
    "dice": {"roll": "r", "score": "enter"},
    "race": {"grab": "a", "pass": "p"},
    "knock": {
        "roll": "r",
        "pass": "p",
        "knock": "k",
        "lay": "2",
        "prelay": "enter",
        "reveal": None,
    },
}


def entries_the_engine_needs(
    ruleset: str, legal: list, held: frozenset[int] = frozenset()
) -> set[str]:
    """The footer entries the seat's legal moves call for: each kind's key; in dice also the
    hold keys when a throw may keep dice and the box keys when more than one box is open; in
    knock the card keys for a knock naming a card and a pre-lay to pick. (With all five dice
    `held` a throw is reached by letting one go, by the hold keys: r then says so.)"""
    needed = {
        entry for action in legal if (entry := ENTRY_FOR_MOVE[ruleset][action["type"]]) is not None
    }
    if ruleset == "dice" and any(a["type"] == "roll" and a.get("hold") for a in legal):
        needed.add("1")
    if ruleset == "dice" and len({a["box"] for a in legal if a["type"] == "score"}) > 1:
        needed.add("up")
    if ruleset == "dice" and len(held) == 5:
        needed.discard("r")
    if ruleset == "knock" and any(a["type"] == "prelay" or "card" in a for a in legal):
        needed.add("2")
    return needed


def refusal_of(game, seat: int, action: Mapping, t: int) -> str | None:
    """The engine's words refusing `action` from `seat` at `t` (None: it accepts it), tried on
    a copy of the game, as the host would apply it."""
    probe = copy.deepcopy(game)
    try:
        probe.apply(seat, action, max(t, game.now))
    except IllegalAction as refusal:
        return refusal.words
    return None


def prelay_action(cards) -> dict:
    """The commitment the client sends for a pre-lay of `cards` (its secret fixed)."""
    return {"type": "prelay", "commit": prelay_commitment(list(cards), "00" * 16)}


class RefereeClient(ScriptedClient):
    """A ScriptedClient whose sends are judged by a copy of the engine: `sent` keeps
    (action, None) when accepted, (action, reason) when refused."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[tuple[dict, str | None]] = []

    def judge(self, action: dict) -> None:
        self.sent.append((action, refusal_of(self.game, self.seat, action, self.clock_ms)))

    def act_nowait(self, action) -> None:
        self.judge(action)

    async def act(self, action) -> None:
        self.judge(action)

    async def prelay(self, cards) -> None:
        self.judge(prelay_action(cards))
