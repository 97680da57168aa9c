"""The `race` game's data, declared once: its actions, notes and view.

The engine (race.py) returns these, the screens and bots read them, and protocol/actions.py
derives the wire's check of incoming actions from the action declarations (their `Literal`
type, fields and `Annotated` specs). What each field means: race.py's docstring.
"""

from typing import Annotated, Literal, NotRequired, TypedDict, final

from .game_types import (
    MAX_SEATS,
    AwayNote,
    BackNote,
    CardInfo,
    GameOverNote,
    HostAction,
    Result,
    Whole,
)

# ---- actions --------------------------------------------------------------------------------


@final
class GrabAction(TypedDict):
    type: Literal["grab"]
    card: Annotated[
        int, Whole(0, 10, "Say which card of the circle to grab: a place from 0 to 10.")
    ]
    id: NotRequired[
        Annotated[
            int, Whole(0, MAX_SEATS * 11 - 1, "There is no such card: card ids go from 0 to 87.")
        ]
    ]


@final
class PassAction(TypedDict):
    type: Literal["pass"]


PlayerAction = GrabAction | PassAction
Action = PlayerAction | HostAction

# The name a player reads for each action type, where it is not the type itself.
SPOKEN: dict[str, str] = {}


# ---- notes ------------------------------------------------------------------------------------

RoundEndedWhy = Literal["all_done", "no_match_left", "time_up"]


class RolledNote(TypedDict):
    type: Literal["rolled"]
    round: int
    dice: list[int]
    targets: list[int]


class WipedNote(TypedDict):
    type: Literal["wiped"]
    cards: list[int]


class Dealt(TypedDict):
    pos: int
    card: int


class DealtNote(TypedDict):
    type: Literal["dealt"]
    cards: list[Dealt]


class GrabbedNote(TypedDict):
    type: Literal["grabbed"]
    seat: int
    pos: int
    card: int


class PassedNote(TypedDict):
    type: Literal["passed"]
    seat: int


class RoundEndedNote(TypedDict):
    type: Literal["round_ended"]
    why: RoundEndedWhy


class Reveal(TypedDict):
    seat: int
    pos: int
    card: int
    number: int
    right: bool
    penalty: int | None  # the card slid under the pile


class RevealedNote(Reveal):
    type: Literal["revealed"]


class PauseNote(TypedDict):
    type: Literal["pause"]
    deadline: int


class CountdownNote(TypedDict):
    type: Literal["countdown"]
    deadline: int


Note = (
    RolledNote
    | WipedNote
    | DealtNote
    | GrabbedNote
    | PassedNote
    | RoundEndedNote
    | RevealedNote
    | PauseNote
    | CountdownNote
    | GameOverNote
    | AwayNote
    | BackNote
)


# ---- view -------------------------------------------------------------------------------------

Phase = Literal["countdown", "grabbing", "pause", "over"]


class Grab(TypedDict):
    seat: int
    pos: int
    card: int
    t: int


class CircleCard(CardInfo):
    pos: int
    target: bool
    grabbed_by: int | None


class LastRound(TypedDict):
    round: int
    dice: list[int]
    targets: list[int]
    wiped: list[int] | None
    reveals: list[Reveal]
    dealt: list[Dealt]
    why: Literal["all_done", "no_match_left", "time_up", "no_match"]


class Player(TypedDict):
    seat: int
    back: str
    away: bool
    pile_count: int
    top: CardInfo | None
    score: int


class View(TypedDict):
    ruleset: Literal["race"]
    seats: int
    you: int | None
    phase: Phase
    deadline: int | None
    round: int
    chips: list[int]
    dice: list[int] | None
    targets: list[int]
    joker: bool
    circle: list[CircleCard | None]
    pile_count: int
    removed_count: int
    grabs: list[Grab]
    passed: list[int]
    done: list[bool]
    last_round: LastRound | None
    players: list[Player]
    scores: list[int]
    result: Result | None
