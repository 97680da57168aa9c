"""Each game's action vocabulary, checked on the wire: action types, their fields, value ranges.

The vocabulary is not written here: it is derived, once at import, from the engine's
declarations (kismet_tui/rules/<game>_types.py): each action TypedDict's `Literal` type, its
fields, and each field's `Annotated` spec (range and the words a refusal says), by the same
machinery that derives the client's requests (protocol/declared.py).

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

from types import ModuleType
from typing import get_args

from kismet_tui.rules import dice_types, knock_types, race_types
from kismet_tui.rules.game_types import HostAction

from .declared import Field, declared_fields
from .errors import ProtocolError
from .plain import Plain


def _refuse(words: str) -> ProtocolError:
    return ProtocolError("bad_action", words)


# ---- the vocabulary, derived from the engine's declarations ----------------------------------

# Each game's declarations (kismet_tui/rules/<game>_types.py): its PlayerAction union of
# TypedDicts, and SPOKEN, the name a player reads where it is not the type.
_DECLARATIONS = {"dice": dice_types, "race": race_types, "knock": knock_types}


def _vocabulary(module: ModuleType) -> dict[str, tuple[str, dict[str, Field]]]:
    """action type -> (the name a player reads, {field: Field}) of one game's declarations."""
    out = {}
    for declared in get_args(module.PlayerAction):
        kind, fields = declared_fields(declared)
        out[kind] = (module.SPOKEN.get(kind, kind), fields)
    return out


# The host stamps these for every game; a client may not (the engine refuses them from a seat).
HOST_ACTIONS: dict[str, dict[str, Field]] = {
    kind: fields for kind, fields in map(declared_fields, get_args(HostAction))
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
