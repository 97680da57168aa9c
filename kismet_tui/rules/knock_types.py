"""The `knock` game's data, declared once: its actions, notes, view and result.

The engine (knock.py) returns these, the screens and bots read them, and protocol/actions.py
derives the wire's check of incoming actions from the action declarations (their `Literal`
type, fields and `Annotated` specs). What each field means: knock.py's docstring.
"""

from typing import Annotated, Literal, NotRequired, TypedDict, final

from .game_types import (
    AwayNote,
    BackNote,
    Clock,
    GameOverNote,
    Hex,
    HostAction,
    LimitWhy,
    Result,
    Whole,
    WholeList,
)

_CARD_WORDS = "Say which card: its number, 2 to 12."


# ---- actions --------------------------------------------------------------------------------


@final
class PrelayAction(TypedDict):
    type: Literal["prelay"]
    commit: Annotated[
        str, Hex(64, 64, "A pre-lay commitment is 64 lowercase hex digits (a SHA-256).")
    ]


@final
class RevealAction(TypedDict):
    type: Literal["reveal"]
    cards: Annotated[
        list[int], WholeList(2, 12, 11, "Reveal the list of cards you committed to, 2 to 12.")
    ]
    salt: Annotated[str, Hex(1, 128, "The salt is the hex string you committed with.")]


@final
class RollAction(TypedDict):
    type: Literal["roll"]


@final
class LayAction(TypedDict):
    type: Literal["lay"]
    card: Annotated[int, Whole(2, 12, _CARD_WORDS)]
    extra: NotRequired[
        Annotated[int | None, Whole(2, 12, "The extra card must be another of your open cards.")]
    ]


@final
class PassAction(TypedDict):
    type: Literal["pass"]


@final
class KnockAction(TypedDict):
    type: Literal["knock"]
    card: NotRequired[Annotated[int | None, Whole(2, 12, _CARD_WORDS)]]


PlayerAction = PrelayAction | RevealAction | RollAction | LayAction | PassAction | KnockAction
Action = PlayerAction | HostAction

# The name a player reads for each action type, where it is not the type itself.
SPOKEN: dict[str, str] = {"prelay": "pre-lay"}


# ---- notes ------------------------------------------------------------------------------------

Case = Literal["overlooked", "roller_holds", "roller_has_none"]
Judgement = Literal["good", "wrong", "too_slow"]


class SeatCard(TypedDict):
    seat: int
    card: int


class CommittedNote(TypedDict):
    type: Literal["committed"]
    seat: int


class PrelayDefaultedNote(TypedDict):
    type: Literal["prelay_defaulted"]
    seat: int
    limit_ms: int


class RevealedNote(TypedDict):
    type: Literal["revealed"]
    seat: int
    count: int


class PrelaysDoneNote(TypedDict):
    type: Literal["prelays_done"]
    first_roller: int


class DefaultPlayNote(TypedDict):
    type: Literal["default_play"]
    seat: int
    why: LimitWhy
    limit_ms: int


class RolledNote(TypedDict):
    type: Literal["rolled"]
    seat: int
    roll: int
    dice: list[int]
    targets: list[int]
    joker: bool


class LaidNote(TypedDict):
    type: Literal["laid"]
    seat: int
    cards: list[int]


class PassedNote(TypedDict):
    type: Literal["passed"]
    seat: int


class KnockedNote(TypedDict):
    type: Literal["knocked"]
    roll: int
    seat: int
    case: Case
    judgement: Judgement
    laid: int | None
    turned_up: SeatCard | None


class TurnNote(TypedDict):
    type: Literal["turn"]
    seat: int
    roll_from: int


class RoundScore(TypedDict):
    round: int
    winners: list[int]
    minus: list[int]


class RoundOverNote(RoundScore):
    type: Literal["round_over"]


Note = (
    CommittedNote
    | PrelayDefaultedNote
    | RevealedNote
    | PrelaysDoneNote
    | DefaultPlayNote
    | RolledNote
    | LaidNote
    | PassedNote
    | KnockedNote
    | TurnNote
    | RoundOverNote
    | GameOverNote
    | AwayNote
    | BackNote
)


# ---- view and result --------------------------------------------------------------------------

Phase = Literal["prelay_commit", "prelay_reveal", "play", "over"]


class KnockResult(Result):
    minus_points: list[int]
    round_scores: list[list[int]]


class Knock(TypedDict):
    seat: int
    t: int
    case: Case
    judgement: Judgement
    laid: int | None
    turned_up: SeatCard | None


class Roll(TypedDict):
    no: int
    roller: int
    dice: list[int]
    targets: list[int]
    joker: bool
    status: Literal["deciding", "laid", "passed"]
    laid: list[int]
    knocks: list[Knock]
    knocked: list[int]


class RollState(Roll):
    """The engine's roll: the view's, and whether a knock on it was judged good yet."""

    good_done: bool


class OpenCard(TypedDict):
    number: int
    chip: int
    id: int


class Player(TypedDict):
    seat: int
    back: str
    away: bool
    idle: bool
    open: list[OpenCard]
    open_chips: int
    laid_count: int
    laid: list[int] | None  # your own seat's only
    committed: bool
    revealed: bool
    minus_points: int


class View(TypedDict):
    ruleset: Literal["knock"]
    seats: int
    you: int | None
    phase: Phase
    round: int
    rounds: int
    chips: list[int]
    deadline: int | None
    clocks: list[Clock]
    first_roller: int | None
    turn: int | None
    stage: Literal["roll", "decide"] | None
    roll_from: int | None
    roll: Roll | None
    players: list[Player]
    minus_points: list[int]
    round_scores: list[list[int]]
    last_round: RoundScore | None
    result: KnockResult | None
