"""Hints for a human player: the choices open to them now, best first.

    advise(game, seat) -> [{"action": {...}, "label": str, "expected": float | None,
                            "exact": bool}, ...]

`action` is ready to send as it is. In the dice game `expected` is the expected final score
of the game after that choice (then playing on well), and `exact` says whether it comes from
the optimal table (True) or, until that table is loaded (asking starts its build in the
background when the cache has none), from the heuristic one (False). In the card games the hint is plain rules-reading (which cards match, whether a
knock would be good): `expected` is the chips the choice moves (race: chips won; knock:
minus points saved), `exact` True. An empty list: nothing to advise (not your turn, or the
game is over). Importable without Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from kismet_tui.rules import cards as card_rules
from kismet_tui.rules import dice_types, knock_types, race_types
from kismet_tui.rules.base import AnyGame
from kismet_tui.rules.dice import DiceGame
from kismet_tui.rules.knock import KnockGame
from kismet_tui.rules.race import RaceGame
from kismet_tui.solver import advice, heuristic

from .dice_levels import optimal_table


class Hint(TypedDict):
    """One choice open to the player, as `advise` ranks them."""

    action: dice_types.PlayerAction | race_types.PlayerAction | knock_types.PlayerAction
    label: str
    expected: float | None
    exact: bool


Advise = Callable[[AnyGame, int], list[Hint]]


def advise(game: AnyGame, seat: int | None) -> list[Hint]:
    if game.finished or seat is None:
        return []
    if isinstance(game, DiceGame):
        return _dice(game, seat)
    if isinstance(game, RaceGame):
        return _race(game, seat)
    if isinstance(game, KnockGame):
        return _knock(game, seat)
    raise KeyError(game.RULESET)


def _dice(game: DiceGame, seat: int) -> list[Hint]:
    view = game.view(seat)
    if view["current"] != seat:
        return []
    V = optimal_table()
    exact = V is not None
    if V is None:
        V = heuristic.approximate_table()
    ranked = advice.choices(V, view["cards"][seat], list(view["dice"]), view["rolls_used"])
    return [
        {
            "action": choice.action,
            "label": choice.label,
            "expected": choice.expected,
            "exact": exact,
        }
        for choice in ranked
    ]


def _race(game: RaceGame, seat: int) -> list[Hint]:
    if not game.legal_actions(seat):
        return []
    view = game.view(seat)
    free = [c for c in view["circle"] if c is not None and c["grabbed_by"] is None and c["target"]]
    free.sort(key=lambda c: (-c["chip"], -c["number"], c["pos"]))
    out: list[Hint] = [
        {
            "action": {"type": "grab", "card": c["pos"], "id": c["id"]},
            "label": f"Grab the {c['number']} ({_chips(c['chip'])})",
            "expected": float(c["chip"]),
            "exact": True,
        }
        for c in free
    ]
    if not out:
        out.append(
            {
                "action": {"type": "pass"},
                "label": "Pass: no card left shows a target",
                "expected": 0.0,
                "exact": True,
            }
        )
    return out


def _knock(game: KnockGame, seat: int) -> list[Hint]:
    view = game.view(seat)
    if view["phase"] != "play":
        return []
    chips = view["chips"]
    chip = lambda n: card_rules.chip(n, chips)  # noqa: E731
    mine = [c["number"] for c in view["players"][seat]["open"]]
    roll = view["roll"]
    if view["turn"] == seat and view["stage"] == "roll":
        return [
            {"action": {"type": "roll"}, "label": "Roll the dice", "expected": None, "exact": True}
        ]
    if roll is None:
        return []
    targets = set(roll["targets"])
    matches = sorted((n for n in mine if n in targets), key=lambda n: (-chip(n), -n))
    if view["turn"] == seat and view["stage"] == "decide":
        out: list[Hint] = []
        for n in matches:
            action: knock_types.LayAction = {"type": "lay", "card": n}
            label = f"Lay your {n} ({_chips(chip(n))})"
            saved = chip(n)
            others = sorted((m for m in mine if m != n), key=lambda m: (-chip(m), -m))
            if roll["joker"] and others:
                action["extra"] = others[0]
                label += f" and your {others[0]}"
                saved += chip(others[0])
            out.append({"action": action, "label": label, "expected": float(saved), "exact": True})
        out.append(
            {
                "action": {"type": "pass"},
                "label": "Pass" if not matches else "Pass (others may knock: you hold a match)",
                "expected": 0.0,
                "exact": True,
            }
        )
        return out
    if roll["roller"] == seat or seat in roll["knocked"]:
        return []
    if any(k["judgement"] == "good" for k in roll["knocks"]):
        return []
    roller_open = {c["number"] for c in view["players"][roll["roller"]]["open"]}
    overlooked = roll["status"] == "passed" and bool(roller_open & targets)
    if overlooked or (not roller_open & targets and matches):
        knock: knock_types.KnockAction = {"type": "knock"}
        if matches:
            knock["card"] = matches[0]
        why = "the roller passed over a match" if overlooked else "the roller has no match"
        lay = f": lay your {matches[0]}" if matches else ""
        return [
            {
                "action": knock,
                "label": f"Knock! {why}{lay}",
                "expected": float(chip(matches[0])) if matches else 0.0,
                "exact": True,
            }
        ]
    return []


def _chips(n: int) -> str:
    return f"{n} chip" if n == 1 else f"{n} chips"
