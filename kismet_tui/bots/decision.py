"""What a bot's policy decides: a pause and an action of its game, or nothing yet.

The actions are the engine's declared ones (kismet_tui/rules/<game>_types.py), but for
knock's secret pre-lay: a policy names its cards (`PrelayChoice`), and the runner turns
them into the client library's commit-reveal (`Client.prelay`)."""

from typing import Literal, Protocol, TypedDict, TypeVar, final

from kismet_tui.rules import dice_types, knock_types, race_types
from kismet_tui.rules.base import AnyGame


@final
class PrelayChoice(TypedDict):
    type: Literal["prelay"]
    cards: list[int]


BotAction = (
    dice_types.PlayerAction | race_types.PlayerAction | knock_types.PlayerAction | PrelayChoice
)
# (pause in ms before acting, the action), or None: nothing to do now.
Decision = tuple[int, BotAction] | None


GameT = TypeVar("GameT", bound=AnyGame, contravariant=True)


class Policy(Protocol[GameT]):
    """What a bot level is (kismet_tui/bots): given its game, the next (pause, action). Each
    game's policies take that game (`Policy[RaceGame]`); a runner or arena that learns the
    ruleset at run time holds a `Policy[Any]`."""

    def decide(self, game: GameT, seat: int, now_ms: int) -> Decision: ...
