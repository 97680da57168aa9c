"""Each game's action vocabulary, declared once: action types, their fields, value ranges.

The host never stores or relays what a client sent. `build_action(ruleset, sent)` checks the
sent map against the game's vocabulary and builds a new map from the validated fields only;
that new map is what the engine applies, the log stores and everybody receives. So nothing a
client adds (padding, escape sequences, a field a later version might read) gets past it.

A refusal raises ProtocolError("bad_action") in words a player can read ("A roll has no field
'note'."). The engine still judges whether a well-formed action is legal now; this module
only says what an action may look like. docs/protocol.md, "The games' actions", lists the
same table for other implementations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeGuard

from .errors import ProtocolError
from .plain import Plain

MAX_SEATS = 8  # the most seats any game has (card ids run 0 .. 11 * seats - 1)


def _refuse(words: str) -> ProtocolError:
    return ProtocolError("bad_action", words)


# A field's check: (the value as sent, the field's name) -> the value to store, or raise.
Check = Callable[[object, str], object]


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# ---- field kinds: (value, what) -> the value to store, or raise -----------------------------

def whole(low: int, high: int, words: str) -> Check:
    def check(value: object, what: str) -> object:
        if not _is_int(value) or not low <= value <= high:
            raise _refuse(words)
        return value
    return check


def whole_list(low: int, high: int, most: int, words: str) -> Check:
    def check(value: object, what: str) -> object:
        if not isinstance(value, list) or len(value) > most:
            raise _refuse(words)
        for item in value:
            if not _is_int(item) or not low <= item <= high:
                raise _refuse(words)
        return list(value)
    return check


def hex_text(low: int, high: int, words: str) -> Check:
    digits = set("0123456789abcdef")

    def check(value: object, what: str) -> object:
        if not isinstance(value, str) or not low <= len(value) <= high or set(value) - digits:
            raise _refuse(words)
        return value
    return check


def word(most: int, words: str) -> Check:
    """A short identifier (a box id): lowercase letters and underscores."""
    allowed = set("abcdefghijklmnopqrstuvwxyz_")

    def check(value: object, what: str) -> object:
        if not isinstance(value, str) or not 0 < len(value) <= most or set(value) - allowed:
            raise _refuse(words)
        return value
    return check


def flag(words: str) -> Check:
    def check(value: object, what: str) -> object:
        if not isinstance(value, bool):
            raise _refuse(words)
        return value
    return check


class Field:
    """One field of an action: its check, and whether nil means "absent"."""

    __slots__ = ("check", "nullable")

    def __init__(self, check: Check, nullable: bool = False):
        self.check = check
        self.nullable = nullable


# The host stamps these for every game; a client may not (the engine refuses them from a seat).
SEAT = Field(whole(0, MAX_SEATS - 1, "Away and back events must name a seat at the table."))
HOST_ACTIONS: dict[str, dict[str, Field]] = {
    "timeout": {}, "away": {"seat": SEAT}, "back": {"seat": SEAT}}

# ruleset -> action type -> (the name a player reads, {field: Field}). Every field optional
# unless the engine's own words say it is needed; the engine then refuses a missing one.
VOCABULARY: dict[str, dict[str, tuple[str, dict[str, Field]]]] = {
    "dice": {
        "roll": ("roll", {"hold": Field(whole_list(
            0, 4, 5, "'hold' is a list of at most five dice positions, 0 to 4."),
            nullable=True)}),
        "score": ("score", {
            "box": Field(word(24, "Say which box to score: its name on the card, like 'aces'.")),
            "joker": Field(flag("'joker' is true or false.")),
        }),
    },
    "race": {
        "grab": ("grab", {
            "card": Field(whole(0, 10, "Say which card of the circle to grab: a place from 0 to 10.")),
            "id": Field(whole(0, MAX_SEATS * 11 - 1, "That card has left the circle: look again.")),
        }),
        "pass": ("pass", {}),
    },
    "knock": {
        "prelay": ("pre-lay", {"commit": Field(hex_text(
            64, 64, "A pre-lay commitment is 64 lowercase hex digits (a SHA-256)."))}),
        "reveal": ("reveal", {
            "cards": Field(whole_list(2, 12, 11,
                                      "Reveal the list of cards you committed to, 2 to 12.")),
            "salt": Field(hex_text(1, 128, "The salt is the hex string you committed with.")),
        }),
        "roll": ("roll", {}),
        "lay": ("lay", {
            "card": Field(whole(2, 12, "Say which card: its number, 2 to 12.")),
            "extra": Field(whole(2, 12, "The extra card must be another of your open cards."),
                           nullable=True),
        }),
        "pass": ("pass", {}),
        "knock": ("knock", {
            "card": Field(whole(2, 12, "Say which card: its number, 2 to 12."),
                          nullable=True),
        }),
    },
}


def _article(name: str) -> str:
    return ("An " if name[0] in "aeiou" else "A ") + name


def build_action(ruleset: str, sent: object) -> Plain:
    """The action to apply, store and relay, built from the validated fields of `sent`."""
    if not isinstance(sent, dict) or not isinstance(sent.get("type"), str):
        raise ProtocolError("bad_message", "An action must be a map with a 'type'.")
    kind = sent["type"]
    game = VOCABULARY.get(ruleset, {})
    if kind in game:
        name, fields = game[kind]
    elif kind in HOST_ACTIONS:
        name, fields = kind, HOST_ACTIONS[kind]
    else:
        shown = kind[:24] if kind.isprintable() else "?"
        raise _refuse(f"There is no action called '{shown}' in this game.")
    built: Plain = {"type": kind}
    for key, value in sent.items():
        if key == "type":
            continue
        field = fields.get(key) if isinstance(key, str) else None
        if field is None:
            shown = key[:24] if isinstance(key, str) and key.isprintable() else "?"
            raise _refuse(f"{_article(name)} has no field '{shown}'.")
        if value is None and field.nullable:
            continue  # nil means absent: the engine reads both the same way
        built[key] = field.check(value, key)
    return built
