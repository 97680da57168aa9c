"""The wire's checks, derived from declarations: one way for actions and requests alike.

Every map the host takes from a client is declared once, as a TypedDict: each game's actions
in kismet_tui/rules/<game>_types.py (and the host's in game_types.py), the client's requests
in protocol/requests.py. A declaration names its kind by its `Literal` `type`; every other
field carries an `Annotated` spec saying what its value may be and the words a refusal says.
`declared_fields` walks a declaration's hints into one `Field` per field: its check, whether
nil is allowed (its type admits None), and its default (a `Default` spec, else required, or
left out where the field is NotRequired).

The field kinds are here too. An action's spec is data (the engine stays pure: Whole,
WholeList, Hex, Word, Flag), turned into a check that refuses as `bad_action` in the spec's
own words; a request's spec is the check itself, one of the kinds below (or one of
protocol/requests.py's own), refusing as `bad_message` in words that name the field.
protocol/actions.py builds an action from its fields, protocol/requests.py a request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import (
    Annotated,
    NotRequired,
    Required,
    TypeGuard,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from kismet_tui.rules.game_types import Flag, Hex, Whole, WholeList, Word

from .body import plain_data
from .errors import ProtocolError
from .plain import Plain

# A field's check: (the value as sent, the field's name) -> the value to keep, or raise.
Check = Callable[[object, str], object]


class Default:
    """The value a request's field takes when it is left out (a list or map is copied)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


REQUIRED = _Required()  # the field must be sent
ABSENT = _Absent()  # NotRequired with no Default: left out when it is not sent


class Field:
    """One declared field: its check, whether nil is allowed, and its default."""

    __slots__ = ("check", "default", "nullable")

    def __init__(self, check: Check, nullable: bool, default: object) -> None:
        self.check = check
        self.nullable = nullable
        self.default = default


def declared_fields(declared: type) -> tuple[str, dict[str, Field]]:
    """A TypedDict's kind (its `type`'s `Literal`) and its other fields, each from its
    `Annotated` spec, in the order declared (a base class's fields first)."""
    hints = get_type_hints(declared, include_extras=True)
    kind = get_args(hints.pop("type"))[0]
    required: frozenset[str] = vars(declared)["__required_keys__"]
    fields = {}
    for name, hint in hints.items():
        while get_origin(hint) in (NotRequired, Required):
            hint = get_args(hint)[0]
        if get_origin(hint) is not Annotated:
            raise TypeError(f"{declared.__name__}.{name} declares no value spec")
        value_type, *specs = get_args(hint)
        check = next(c for c in map(_check_of, specs) if c is not None)
        given = [s.value for s in specs if isinstance(s, Default)]
        default = given[0] if given else REQUIRED if name in required else ABSENT
        nullable = type(None) in get_args(value_type)
        fields[name] = Field(check, nullable, default)
    return kind, fields


def _check_of(spec: object) -> Check | None:
    """The check a field's spec stands for; None for what is no check (a `Default`)."""
    if isinstance(spec, Whole):
        return _whole(spec.low, spec.high, spec.words)
    if isinstance(spec, WholeList):
        return _whole_list(spec.low, spec.high, spec.most, spec.words)
    if isinstance(spec, Hex):
        return _hex_text(spec.low, spec.high, spec.words)
    if isinstance(spec, Word):
        return _word(spec.most, spec.words)
    if isinstance(spec, Flag):
        return _flag(spec.words)
    if callable(spec):  # a request's kind
        return cast(Check, spec)
    return None


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# ---- the action specs' kinds: (value, what) -> the value to store, or `bad_action` ---------


def _refuse(words: str) -> ProtocolError:
    return ProtocolError("bad_action", words)


def _whole(low: int, high: int, words: str) -> Check:
    def check(value: object, what: str) -> object:
        if not is_int(value) or not low <= value <= high:
            raise _refuse(words)
        return value

    return check


def _whole_list(low: int, high: int, most: int, words: str) -> Check:
    def check(value: object, what: str) -> object:
        if not isinstance(value, list) or len(value) > most:
            raise _refuse(words)
        for item in value:
            if not is_int(item) or not low <= item <= high:
                raise _refuse(words)
        return list(value)

    return check


def _hex_text(low: int, high: int, words: str) -> Check:
    digits = set("0123456789abcdef")

    def check(value: object, what: str) -> object:
        if not isinstance(value, str) or not low <= len(value) <= high or set(value) - digits:
            raise _refuse(words)
        return value

    return check


def _word(most: int, words: str) -> Check:
    """A short identifier (a box id): lowercase letters and underscores."""
    allowed = set("abcdefghijklmnopqrstuvwxyz_")

    def check(value: object, what: str) -> object:
        if not isinstance(value, str) or not 0 < len(value) <= most or set(value) - allowed:
            raise _refuse(words)
        return value

    return check


def _flag(words: str) -> Check:
    def check(value: object, what: str) -> object:
        if not isinstance(value, bool):
            raise _refuse(words)
        return value

    return check


# ---- the requests' kinds: (value, field name) -> the cleaned value, or `bad_message` -------


def bad(words: str) -> ProtocolError:
    return ProtocolError("bad_message", words)


def integer(low: int, high: int) -> Callable[[object, str], int]:
    def check(value: object, field: str) -> int:
        if not is_int(value):
            raise bad(f"'{field}' must be a whole number.")
        if not low <= value <= high:
            raise bad(f"'{field}' must be between {low} and {high}.")
        return value

    return check


def text(max_len: int, clean: Callable[[str], str] | None = None) -> Callable[[object, str], str]:
    def check(value: object, field: str) -> str:
        if not isinstance(value, str):
            raise bad(f"'{field}' must be text.")
        if len(value) > max_len:
            raise bad(f"'{field}' is too long (at most {max_len} characters).")
        return clean(value) if clean else value

    return check


def boolean(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise bad(f"'{field}' must be true or false.")
    return value


def one_of(choices: tuple[str, ...]) -> Callable[[object, str], str]:
    def check(value: object, field: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise bad(f"'{field}' must be one of: {', '.join(choices)}.")
        return value

    return check


def int_list(max_len: int, high: int) -> Callable[[object, str], list[int]]:
    def check(value: object, field: str) -> list[int]:
        if not isinstance(value, list) or len(value) > max_len:
            raise bad(f"'{field}' must be a list of at most {max_len} numbers.")
        return [integer(0, high)(item, field) for item in value]

    return check


def plain_map(value: object, field: str) -> Plain:
    if not isinstance(value, dict):
        raise bad(f"'{field}' must be a map.")
    return cast(Plain, plain_data(value, field))  # (a map comes back a map, text keys checked)
