"""The `dice` game's data, declared once: its actions, notes, view and result.

The engine (dice.py) returns these, the screens and bots read them, and protocol/actions.py
derives the wire's check of incoming actions from the action declarations (their `Literal`
type, fields and `Annotated` specs). What each field means: dice.py's docstring.
"""

from typing import Annotated, Literal, NotRequired, TypedDict, final

from .game_types import (
    AwayNote,
    BackNote,
    Clock,
    Flag,
    GameOverNote,
    HostAction,
    LimitWhy,
    Result,
    WholeList,
    Word,
)

# ---- actions --------------------------------------------------------------------------------


@final
class RollAction(TypedDict):
    type: Literal["roll"]
    hold: NotRequired[
        Annotated[
            list[int] | None,
            WholeList(0, 4, 5, "'hold' is a list of at most five dice positions, 0 to 4."),
        ]
    ]


@final
class ScoreAction(TypedDict):
    type: Literal["score"]
    box: Annotated[str, Word(24, "Say which box to score: its name on the card, like 'aces'.")]
    joker: NotRequired[Annotated[bool, Flag("'joker' is true or false.")]]


PlayerAction = RollAction | ScoreAction
Action = PlayerAction | HostAction

# The name a player reads for each action type, where it is not the type itself.
SPOKEN: dict[str, str] = {}


# ---- notes ------------------------------------------------------------------------------------


class TimeoutNote(TypedDict):
    type: Literal["timeout"]
    seat: int
    why: LimitWhy
    limit_ms: int


class RolledNote(TypedDict):
    type: Literal["rolled"]
    seat: int
    dice: list[int]
    roll: int
    held: list[int]


class ScoredNote(TypedDict):
    type: Literal["scored"]
    seat: int
    box: str
    points: int
    dice: list[int]
    joker: bool


class PenaltyNote(TypedDict):
    type: Literal["penalty"]
    seat: int
    victims: list[list[int | str]]  # [seat, box] pairs


class ExtraTurnNote(TypedDict):
    type: Literal["extra_turn"]
    seat: int


class TurnNote(TypedDict):
    type: Literal["turn"]
    seat: int


Note = (
    TimeoutNote
    | RolledNote
    | ScoredNote
    | PenaltyNote
    | ExtraTurnNote
    | TurnNote
    | GameOverNote
    | AwayNote
    | BackNote
)


# ---- view and result --------------------------------------------------------------------------


class DiceResult(Result):
    basic: list[int]
    bonus: list[int]
    kismet_section: list[int]


class BoxPreview(TypedDict):
    points: int
    legal: bool
    joker: bool


class Totals(TypedDict):
    basic: int
    bonus: int
    kismet_section: int
    total: int


class RollOff(TypedDict):
    rounds: list[list[list[int]]]  # per round, [seat, face] per throw
    first: int


class LastScore(TypedDict):
    seat: int
    box: str
    points: int
    dice: list[int]
    joker: bool


class View(TypedDict):
    ruleset: Literal["dice"]
    you: int | None
    seats: int
    phase: Literal["playing", "over"]
    current: int | None
    your_turn: bool
    dice: list[int]
    rolls_used: int
    rolls_left: int
    can_roll: bool
    can_score: bool
    joker: bool
    preview: dict[str, BoxPreview] | None
    boxes: list[str]
    box_names: dict[str, str]
    cards: list[dict[str, int | None]]
    totals: list[Totals]
    holds_kismet: list[bool]
    card_full: list[bool]
    rolloff: RollOff
    turn: int
    turn_started_ms: int
    deadline_ms: int | None
    clocks: list[Clock]
    away: list[bool]
    idle: list[bool]
    last: LastScore | None
    options: dict[str, int]
    result: DiceResult | None
