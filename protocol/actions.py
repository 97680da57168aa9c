"""Each game's action vocabulary, checked on the wire: action types, their fields, value ranges.

The vocabulary is not written here: it is derived, once at import, from the engine's
declarations (kismet_tui/rules/<game>_types.py): each action TypedDict's `Literal` type, its
fields, and each field's `Annotated` spec (range and the words a refusal says), by the same
machinery that derives the client's requests (protocol/declared.py).

The host never stores or relays what a client sent. `build_action(ruleset, sent)` checks the
sent map against the game's vocabulary and builds a new map from the validated fields only;
that new map, typed as the game's declared action, is what the engine applies, the log stores
and everybody receives. So nothing a client adds (padding, escape sequences, a field a later
version might read) gets past it. It is the one parse of an action: wherever actions enter
the engine from outside (a client's `act`, the host's events a client replays, a log file),
they come through here (`build_event` for a stamped event), and the engine judges only what
the state decides.

A refusal raises ProtocolError("bad_action") in words a player can read ("A roll has no field
'note'."). The engine still judges whether a well-formed action is legal now; this module
only says what an action may look like. docs/protocol.md, "The games' actions", lists the
same table for other implementations.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, Literal, cast, get_args, get_type_hints, overload

from kismet_tui.rules import dice_types, knock_types, race_types
from kismet_tui.rules.game_types import FieldSpec, HostAction

from .declared import Field, declared_fields
from .errors import ProtocolError
from .plain import Plain


def _refuse(words: str) -> ProtocolError:
    return ProtocolError("bad_action", words)


class Fields(dict[str, Field]):
    """An action's fields by name, and `required`: (name, the words that refuse an action
    without it) for each field its declaration requires, so the engine may read it."""

    __slots__ = ("required",)

    def __init__(self, fields: dict[str, Field], required: tuple[tuple[str, str], ...]):
        super().__init__(fields)
        self.required = required


def _action_fields(declared: type) -> tuple[str, Fields]:
    """An action TypedDict's type and fields (declared_fields), with its required fields and
    their spec's words: missing, such a field is refused as a wrong value of it is."""
    kind, fields = declared_fields(declared)
    hints = get_type_hints(declared, include_extras=True)
    required = tuple(
        (name, next(s.words for s in get_args(hints[name]) if isinstance(s, FieldSpec)))
        for name in fields
        if name in vars(declared)["__required_keys__"]
    )
    return kind, Fields(fields, required)


# ---- the vocabulary, derived from the engine's declarations ----------------------------------

# Each game's declarations (kismet_tui/rules/<game>_types.py): its PlayerAction union of
# TypedDicts, and SPOKEN, the name a player reads where it is not the type.
_DECLARATIONS = {"dice": dice_types, "race": race_types, "knock": knock_types}


def _vocabulary(module: ModuleType) -> dict[str, tuple[str, Fields]]:
    """action type -> (the name a player reads, {field: Field}) of one game's declarations."""
    out = {}
    for declared in get_args(module.PlayerAction):
        kind, fields = _action_fields(declared)
        out[kind] = (module.SPOKEN.get(kind, kind), fields)
    return out


# The host stamps these for every game; a client may not (the engine refuses them from a seat).
HOST_ACTIONS: dict[str, Fields] = {
    kind: fields for kind, fields in map(_action_fields, get_args(HostAction))
}

# ruleset -> action type -> (the name a player reads, {field: Field}). A field the declaration
# requires is refused when missing, in its spec's words, so the engine may read it.
VOCABULARY: dict[str, dict[str, tuple[str, Fields]]] = {
    ruleset: _vocabulary(module) for ruleset, module in _DECLARATIONS.items()
}


def _article(name: str) -> str:
    return ("An " if name[0] in "aeiou" else "A ") + name


# Any game's declared action: what `build_action` returns when the ruleset is known only at
# run time (a table's, a log's).
AnyAction = (
    dice_types.PlayerAction | race_types.PlayerAction | knock_types.PlayerAction | HostAction
)


@overload
def build_action(ruleset: Literal["dice"], sent: object) -> dice_types.Action: ...
@overload
def build_action(ruleset: Literal["race"], sent: object) -> race_types.Action: ...
@overload
def build_action(ruleset: Literal["knock"], sent: object) -> knock_types.Action: ...
@overload
def build_action(ruleset: str, sent: object) -> AnyAction: ...


def build_action(ruleset: str, sent: object) -> AnyAction:
    """The action to apply, store and relay, built from the validated fields of `sent`: one
    of the game's declared actions (or the host's), each field of its declared kind."""
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
    for key, words in fields.required:
        if key not in built:
            raise _refuse(words)
    # (Built from the declaration of `kind` alone: it is that action.)
    return cast("AnyAction", built)


def build_event(ruleset: str, event: Mapping[str, Any]) -> Plain:
    """A stamped event ({seq, t, seat, action, chance?}) from outside (the host's `event`, a
    log file) with its action built by `build_action`: how events enter a replica. An event
    without an action raises KeyError, as reading any missing field of it does."""
    return {**event, "action": build_action(ruleset, event["action"])}
