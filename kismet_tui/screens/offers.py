"""Which game keys a game screen offers, and what each one does, as pure functions of what the
screen knows: its seat's view, what the engine lists as legal for the seat now (its
legal_actions, the one source of legality: GameScreen.legal_now) and the player's own
choices on the screen (the dice held, the box chosen, the cards picked to lay in advance, a
joker throw's first card).

The game screens' `check_action` asks `offered` (the footer shows a key, and a button is
drawn, exactly when it says so). `effect` says what pressing an offered key does, as the
screens' key actions do it. With these two the footer's promise (every key shown does what it
says, in every state; every move the engine lists has its key) is checked over thousands of
states without an app (tests/test_footer_mapping.py), and the app, pressed through Pilot in a
few states of every game, is checked to do what `effect` says (tests/test_ui_footer_walk.py).
No clock, no IO: the caller passes the legal moves for the moment it means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..rules import dice as dice_rules
from ..rules.knock import PRELAY_CHIP_LIMIT, prelay_problem

ALL_HELD = "All five dice are held: choose a box to score instead."


@dataclass(frozen=True)
class Seen:
    """What a game screen knows when a key is pressed."""

    seat: int | None
    view: Mapping[str, Any]
    legal: Sequence[Mapping[str, Any]]  # the engine's legal_actions for the seat, now
    held: frozenset[int] = frozenset()  # dice: the dice held for the next throw
    cursor: str | None = None  # dice: the box enter scores in
    chosen: tuple[int, ...] = ()  # knock: the cards picked to lay in advance, in order
    joker_first: int | None = None  # knock: a joker throw's first card, waiting for a second
    advisor: bool = False  # dice: the hint's advisor is loaded

    def kinds(self) -> set[str]:
        return {str(action["type"]) for action in self.legal}


@dataclass(frozen=True)
class Send:
    """The key sends this move to the host."""

    action: Mapping[str, Any]


@dataclass(frozen=True)
class Commit:
    """The key commits to laying these cards in advance (the client keeps them secret)."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class Choose:
    """The key changes the player's choices on the screen, and sends nothing."""

    seen: Seen


@dataclass(frozen=True)
class Think:
    """The key asks the advisor for a hint, shown as marks (nothing is sent)."""


@dataclass(frozen=True)
class Say:
    """The key sends nothing and the screen says why."""

    words: str


Effect = Send | Commit | Choose | Think | Say

# The key actions that are each game's own (the screens' common keys are GameScreen's).
GAME_ACTIONS = {
    "dice": frozenset({"roll", "hold", "cursor", "score", "choose", "hint"}),
    "race": frozenset({"grab", "pass"}),
    "knock": frozenset({"roll", "card", "pass", "knock", "confirm", "undo"}),
}


def offered(ruleset: str, name: str, params: tuple[object, ...], seen: Seen) -> bool:
    """Whether the game's key action `name` (one of GAME_ACTIONS[ruleset]) acts now: the
    footer shows its key, and its button is drawn."""
    if ruleset == "dice":
        return dice_offered(name, params, seen)
    if ruleset == "race":  # (grabbing, until you grabbed or passed: not in the countdown)
        return name in seen.kinds()
    return knock_offered(name, seen)


def effect(ruleset: str, name: str, params: tuple[object, ...], seen: Seen) -> Effect:
    """What pressing the key of action `name` does (with `params` as its binding gives them)."""
    if ruleset == "dice":
        return dice_effect(name, params, seen)
    if ruleset == "race":
        return race_effect(name, params, seen)
    return knock_effect(name, params, seen)


# ---- dice ------------------------------------------------------------------------------------
def next_throw(seen: Seen) -> dict[str, Any]:
    """The throw `r` sends: the dice held kept (none before the first throw)."""
    return {"type": "roll", "hold": sorted(seen.held) if seen.view.get("dice") else []}


def open_boxes(view: Mapping[str, Any]) -> list[str]:
    """The boxes the player may still score in, in the scorecard's order."""
    preview = view.get("preview") or {}
    return [box for box in dice_rules.BOXES if (preview.get(box) or {}).get("legal")]


def dice_offered(name: str, params: tuple[object, ...], seen: Seen) -> bool:
    legal = seen.legal
    if name == "roll":  # (five dice held: nothing to throw)
        return next_throw(seen) in legal
    if name == "hold":  # (a throw that keeps dice: none before the first throw)
        return any(a["type"] == "roll" and a.get("hold") for a in legal)
    if name == "cursor":  # (one box left: nothing to choose)
        return len({a["box"] for a in legal if a["type"] == "score"}) > 1
    if name == "score":
        return "score" in seen.kinds()
    if name == "choose":  # (a click on a box: choose it, and on the chosen one score it)
        return any(a["type"] == "score" and a["box"] == params[0] for a in legal)
    return bool(legal) and seen.advisor  # hint


def dice_effect(name: str, params: tuple[object, ...], seen: Seen) -> Effect:
    if name == "roll":
        throw = next_throw(seen)
        return Say(ALL_HELD) if len(throw["hold"]) == 5 else Send(throw)
    if name == "hold":
        return Choose(replace(seen, held=seen.held ^ {int(str(params[0]))}))
    if name == "cursor":
        boxes = open_boxes(seen.view)
        if not boxes:
            return Choose(seen)
        index = boxes.index(seen.cursor) if seen.cursor in boxes else 0
        return Choose(replace(seen, cursor=boxes[(index + int(str(params[0]))) % len(boxes)]))
    if name == "score":
        if seen.cursor is None:
            return Say("Throw the dice first.")
        return Send({"type": "score", "box": seen.cursor})
    if name == "hint":
        return Think()
    raise ValueError(f"the dice screen has no key for {name!r}")


# ---- race ------------------------------------------------------------------------------------
def race_effect(name: str, params: tuple[object, ...], seen: Seen) -> Effect:
    if name == "pass":
        return Send({"type": "pass"})
    if name == "grab":
        pos = int(str(params[0]))
        card = seen.view["circle"][pos]
        if card is None:
            return Say("There is no card at that place.")
        return Send({"type": "grab", "card": pos, "id": card["id"]})
    raise ValueError(f"the race screen has no key for {name!r}")


# ---- knock -----------------------------------------------------------------------------------
def knock_offered(name: str, seen: Seen) -> bool:
    kinds = seen.kinds()
    choosing = "prelay" in kinds  # before the first throw, our pre-lay not committed yet
    if name in ("roll", "pass"):  # a throw waits out the others' knock window [D15]
        return name in kinds
    if name == "knock":
        return {"type": "knock"} in seen.legal
    if name == "card":  # a pre-lay pick, a lay, or a knock naming a matching card
        return choosing or any(
            a.get("type") in ("lay", "knock") and "card" in a for a in seen.legal
        )
    if name == "confirm":  # (in play only for a joker throw's single card: rare)
        return choosing or (
            seen.joker_first is not None and {"type": "lay", "card": seen.joker_first} in seen.legal
        )
    return choosing and bool(seen.chosen)  # undo


def knock_effect(name: str, params: tuple[object, ...], seen: Seen) -> Effect:
    kinds = seen.kinds()
    deciding = {"type": "pass"} in seen.legal  # our throw is out: we lay or pass
    if name in ("roll", "pass", "knock"):
        return Send({"type": name})
    if name == "undo":
        return Choose(replace(seen, chosen=seen.chosen[:-1])) if seen.chosen else Choose(seen)
    if name == "confirm":
        if "prelay" in kinds:
            return Commit(seen.chosen)
        if deciding and seen.joker_first is not None:
            return Send({"type": "lay", "card": seen.joker_first})
        return Say("Nothing to confirm now: enter lays a joker throw's one card.")
    if name != "card":
        raise ValueError(f"the knock screen has no key for {name!r}")
    number = int(str(params[0]))
    view, me = seen.view, seen.seat
    open_numbers = (
        {card["number"] for card in view["players"][me]["open"]} if me is not None else set()
    )
    if "prelay" in kinds:
        if number in seen.chosen:
            return Choose(replace(seen, chosen=tuple(n for n in seen.chosen if n != number)))
        chips = view.get("chips") or []
        if prelay_problem([*seen.chosen, number], chips) is not None:  # the engine's rule
            return Say(
                f"The {number} carries {chips[number - 2]} chips: that would be more "
                f"than {PRELAY_CHIP_LIMIT} laid in advance."
            )
        return Choose(replace(seen, chosen=(*seen.chosen, number)))
    roll = view.get("roll")
    if deciding:
        if number not in open_numbers:
            return Say(f"Your {number} is not among your open cards.")
        first = seen.joker_first
        if first is not None:
            if number == first:  # the same card again: the pick stands, the host would refuse it
                return Say(
                    f"The {first} goes down already: choose one more card, or enter for none."
                )
            return Send({"type": "lay", "card": first, "extra": number})
        if (
            roll is not None
            and roll["joker"]
            and number in roll["targets"]
            and len(open_numbers) > 1
        ):
            return Choose(replace(seen, joker_first=number))  # a joker throw: a second card
        return Send({"type": "lay", "card": number})
    if "knock" in kinds:
        return Send({"type": "knock", "card": number})
    if roll is not None and roll["roller"] == me:
        return Say("Wait for the next throw: this one was yours.")
    if me is not None and roll is not None and me in roll["knocked"]:
        return Say("You have knocked on this throw already.")
    return Say("Nothing to lay or knock on yet: wait for a throw.")
