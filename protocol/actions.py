"""Each game's action vocabulary, checked on the wire: action types, their fields, value ranges.

The vocabulary is not written here: it is derived, once at import, from the engine's
declarations (kismet_tui/rules/<game>_types.py): each action TypedDict's `Literal` type, its
fields, and each field's `Annotated` spec (range and the words a refusal says).

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
from types import ModuleType
from typing import Annotated, NotRequired, TypeGuard, get_args, get_origin, get_type_hints

from kismet_tui.rules import dice_types, knock_types, race_types
from kismet_tui.rules.game_types import (
    FieldSpec,
    Hex,
    HostAction,
    Whole,
    WholeList,
    Word,
)

from .errors import ProtocolError
from .plain import Plain


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


# ---- the vocabulary, derived from the engine's declarations ----------------------------------

# Each game's declarations (kismet_tui/rules/<game>_types.py): its PlayerAction union of
# TypedDicts, and SPOKEN, the name a player reads where it is not the type.
_DECLARATIONS = {"dice": dice_types, "race": race_types, "knock": knock_types}


def _check_for(spec: FieldSpec) -> Check:
    if isinstance(spec, Whole):
        return whole(spec.low, spec.high, spec.words)
    if isinstance(spec, WholeList):
        return whole_list(spec.low, spec.high, spec.most, spec.words)
    if isinstance(spec, Hex):
        return hex_text(spec.low, spec.high, spec.words)
    if isinstance(spec, Word):
        return word(spec.most, spec.words)
    return flag(spec.words)


def _fields(declared: type) -> tuple[str, dict[str, Field]]:
    """An action TypedDict's type (its `Literal`) and its fields' checks: each field's
    `Annotated` spec, nullable when its type admits None."""
    hints = get_type_hints(declared, include_extras=True)
    kind = get_args(hints.pop("type"))[0]
    fields = {}
    for name, hint in hints.items():
        while get_origin(hint) is NotRequired:
            hint = get_args(hint)[0]
        if get_origin(hint) is not Annotated:
            raise TypeError(f"{declared.__name__}.{name} declares no value spec")
        value_type, *specs = get_args(hint)
        spec = next(s for s in specs if isinstance(s, FieldSpec))
        nullable = type(None) in get_args(value_type)
        fields[name] = Field(_check_for(spec), nullable=nullable)
    return kind, fields


def _vocabulary(module: ModuleType) -> dict[str, tuple[str, dict[str, Field]]]:
    """action type -> (the name a player reads, {field: Field}) of one game's declarations."""
    out = {}
    for declared in get_args(module.PlayerAction):
        kind, fields = _fields(declared)
        out[kind] = (module.SPOKEN.get(kind, kind), fields)
    return out


# The host stamps these for every game; a client may not (the engine refuses them from a seat).
HOST_ACTIONS: dict[str, dict[str, Field]] = {
    kind: fields for kind, fields in map(_fields, get_args(HostAction))
}

# ruleset -> action type -> (the name a player reads, {field: Field}). Every field optional
# here, whatever its declaration says: a missing one is the engine's to refuse, in its words.
VOCABULARY: dict[str, dict[str, tuple[str, dict[str, Field]]]] = {
    ruleset: _vocabulary(module) for ruleset, module in _DECLARATIONS.items()
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
