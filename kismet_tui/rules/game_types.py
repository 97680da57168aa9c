"""What every game's data shares, declared once: the host's actions, the notes of the base
class, a game's header, its result and end record, and the value specs actions carry.

Each game declares its own actions, notes and view in its `<game>_types.py` beside this one
(TypedDicts, so they stay the plain maps the msgpack wire and the log carry; a `Literal`
`type` names each kind). The engine returns them, the screens and bots read them, and the
wire's validator (protocol/actions.py) is derived from the action declarations: a field's
`Annotated` spec (below) gives its range and the words a player reads when it is wrong.

No `from __future__ import annotations` here or in the games' declarations: the validator
reads the annotations at import with typing.get_type_hints.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, TypedDict, final

# The most seats any game has (card ids run 0 .. 11 * seats - 1).
MAX_SEATS = 8


# ---- value specs of action fields (read by protocol/actions.py) ----------------------------
# The words are what a player reads when the host refuses the field's value.


@dataclass(frozen=True)
class Whole:
    """A whole number in [low, high]."""

    low: int
    high: int
    words: str


@dataclass(frozen=True)
class WholeList:
    """A list of at most `most` whole numbers, each in [low, high]."""

    low: int
    high: int
    most: int
    words: str


@dataclass(frozen=True)
class Hex:
    """Lowercase hex digits, `low` to `high` of them."""

    low: int
    high: int
    words: str


@dataclass(frozen=True)
class Word:
    """A short identifier (a box id): 1 to `most` lowercase letters and underscores."""

    most: int
    words: str


@dataclass(frozen=True)
class Flag:
    """True or false."""

    words: str


FieldSpec = Whole | WholeList | Hex | Word | Flag


# ---- the host's actions, the same in every game ---------------------------------------------
# Every action TypedDict is @final: the wire refuses any field it does not declare, so an
# action is exactly its declared keys (and mypy may narrow a union by `"key" in action`).


@final
class TimeoutAction(TypedDict):
    type: Literal["timeout"]


_SEAT_WORDS = "Away and back events must name a seat at the table."


@final
class AwayAction(TypedDict):
    type: Literal["away"]
    seat: Annotated[int, Whole(0, MAX_SEATS - 1, _SEAT_WORDS)]
    # Connected but not playing (two turns missed, or handed to a bot by the owner) [D31]:
    # the host plays for the seat as soon as its turn comes, with no away-limit to wait out.
    idle: NotRequired[Annotated[bool, Flag("'idle' must be true or false.")]]


@final
class BackAction(TypedDict):
    type: Literal["back"]
    seat: Annotated[int, Whole(0, MAX_SEATS - 1, _SEAT_WORDS)]


HostAction = TimeoutAction | AwayAction | BackAction


class AwayNote(TypedDict):
    type: Literal["away"]
    seat: int
    idle: NotRequired[bool]  # present (true) only for an idle seat [D31]


class BackNote(TypedDict):
    type: Literal["back"]
    seat: int


# Why the host played for a seat [D18, D31]: its turn limit passed, its away-limit passed
# (it dropped), or it is idle (played at once).
LimitWhy = Literal["turn_limit", "away_limit", "idle"]


class Clock(TypedDict):
    """One limit running now, for the screens' countdowns [D31]: what it limits, whose it is
    (None: everybody's), and the host time it passes at."""

    kind: Literal["turn", "away", "knock_window", "prelay"]
    seat: int | None
    until: int


class GameOverNote(TypedDict):
    type: Literal["game_over"]
    scores: list[int]
    winners: list[int]


# ---- a game's result, header, events and end record -----------------------------------------


class Result(TypedDict):
    """`result()` of a finished game: one score per seat (higher is better) and the winners.
    Each game's result adds its own fields (dice_types, knock_types)."""

    scores: list[int]
    winners: list[int]


class Header(TypedDict):
    """A game's header, as the host sends it (`game`) and the log keeps it (docs/protocol.md).
    `seats` is the players' names (the engine also takes a count). Version 1 logs carry
    `seed` instead of `commit`, `entropy` and `chance`."""

    ruleset: str
    seats: int | list[str]
    options: NotRequired[dict[str, Any]]
    t0: NotRequired[int]
    commit: NotRequired[str]
    version: NotRequired[int]
    entropy: NotRequired[list[bytes | None]]
    chance: NotRequired[list[int]]
    players: NotRequired[list[str | None]]
    seed: NotRequired[bytes | int | str]


# A header as the engine takes it: the host's own are Headers; one read from a file is
# whatever map the file holds (the engine checks what it uses).
LogHeader = Header | Mapping[str, Any]


class Event(TypedDict):
    """One stamped event: the action applied for `seat` (HOST for the host's) at host time
    `t`, and the chance values it drew (protocol version 2 on)."""

    seq: int
    t: int
    seat: int
    action: dict[str, Any]
    chance: NotRequired[list[int]]


class EndRecord(TypedDict):
    """The log's end record of a finished game (docs/protocol.md, "The log file")."""

    kind: Literal["end"]
    result: Result
    server_seed: NotRequired[bytes]
    digest: NotRequired[str]
    marks: NotRequired[list[bytes]]


class CardInfo(TypedDict):
    """A card of the race and knock games as the screens draw it (cards.card_info)."""

    id: int
    number: int
    chip: int
    set: int
    back: str
