"""The race and knock reviews on screen (kismet_tui/review/race.py, knock.py, docs/review.md):
a line per player as in the end box, then the game a step at a time: race round by round (the
dice, the targets, each player's grab or pass and whether they missed a card that was there),
knock throw by throw where something happened worth learning from (an overlooked lay, a knock
nobody made, a knock good or wrong).

Opened as the dice review is (screens/review.py `review_screen`): `v` in the end box, in
`kismet-replay` and in the records. Keys: → / n the next step, ← / p the previous, escape
back; each has a button too. Reading the log is quick (the end box does it as it opens), so
the screen reads it at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from ..widgets.footer import KeyFooter
from ..widgets.toosmall import TooSmall

UNREADABLE = "This game's log could not be read for a review."


class StepsReviewScreen(Screen[None]):
    """A race or knock game's review, one step (a round, a throw) at a time."""

    STEP = "step"
    DEFAULT_CSS = """
    StepsReviewScreen #steps-heading { height: auto; padding: 0 1; }
    StepsReviewScreen #steps-body { height: 1fr; padding: 0 1; margin-top: 1; }
    StepsReviewScreen #steps-buttons { height: 1; padding: 0 1; }
    StepsReviewScreen #steps-buttons Button { margin-right: 2; }
    """

    def __init__(self, header: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> None:
        super().__init__()
        self.header, self.events = header, list(events)
        self.at = 0
        self.title_line, self.players, self.steps = UNREADABLE, [], []
        try:
            self.read()
        except (ValueError, KeyError, TypeError):
            pass  # (the title says the log could not be read)

    # ---- what a subclass gives -------------------------------------------------------------
    def read(self) -> None:
        """Fill `title_line`, `players` (a line per player) and `steps` (lines per step, and
        the step's heading), from the log."""
        raise NotImplementedError

    nothing = "Nothing to show."
    players: list[str]
    steps: list[tuple[str, list[str]]]

    # ---- the screen ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        step = self.STEP
        yield Static("", id="steps-heading")
        # (Not focusable: its own arrow keys would take ← and → from the steps.)
        with VerticalScroll(id="steps-body", can_focus=False):
            yield Static("", id="steps-step")
        with Horizontal(id="steps-buttons"):
            yield Button(f"< Previous {step}", id="steps-previous", compact=True)
            yield Button(f"Next {step} >", id="steps-next", compact=True)
            yield Button("Back", id="steps-back", compact=True)
        yield TooSmall()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show()

    def shown_lines(self) -> list[str]:
        """The step on screen, as its lines (the heading's step line first)."""
        if not self.steps:
            return [self.nothing]
        title, lines = self.steps[self.at]
        return [f"{title} ({self.at + 1} of {len(self.steps)})", *lines]

    def show(self) -> None:
        heading = Text(self.title_line, style="bold")
        for line in self.players:
            heading.append("\n" + line, style="")
        self.query_one("#steps-heading", Static).update(heading)
        first, *rest = self.shown_lines()
        body = Text(first, style="bold")
        for line in rest:
            body.append("\n" + line)
        self.query_one("#steps-step", Static).update(body)
        self.query_one("#steps-previous", Button).disabled = self.at <= 0
        self.query_one("#steps-next", Button).disabled = self.at >= len(self.steps) - 1
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            step = parameters[0] if parameters else 0
            return 0 <= self.at + (step if isinstance(step, int) else 0) < len(self.steps)
        return True

    def action_step(self, step: int) -> None:
        if 0 <= self.at + step < len(self.steps):
            self.at += step
            self.show()

    def action_close(self) -> None:
        self.dismiss()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "steps-previous": lambda: self.action_step(-1),
            "steps-next": lambda: self.action_step(1),
            "steps-back": self.action_close,
        }
        actions[event.button.id or ""]()


class RaceReviewScreen(StepsReviewScreen):
    """A race game, round by round."""

    STEP = "round"
    nothing = "No round was thrown."
    BINDINGS = [
        Binding("left,p", "step(-1)", "Previous round", key_display="←"),
        Binding("right,n", "step(1)", "Next round", key_display="→"),
        Binding("escape,q", "close", "Back", key_display="esc"),
    ]

    def read(self) -> None:
        from ..review.race import read_race
        from ..review.words import RACE_TITLE, race_line, race_round_lines

        seats, rounds = read_race(self.header, self.events)
        self.title_line = RACE_TITLE
        self.players = [race_line(seat) for seat in seats]
        self.steps = [(f"Round {one.round}", race_round_lines(one, seats)) for one in rounds]


class KnockReviewScreen(StepsReviewScreen):
    """A knock game, throw by throw where something happened worth learning from."""

    STEP = "throw"
    nothing = "Nothing to learn: no lay was overlooked, no knock missed, nobody knocked."
    BINDINGS = [
        Binding("left,p", "step(-1)", "Previous throw", key_display="←"),
        Binding("right,n", "step(1)", "Next throw", key_display="→"),
        Binding("escape,q", "close", "Back", key_display="esc"),
    ]

    def read(self) -> None:
        from ..review.knock import read_knock
        from ..review.words import KNOCK_TITLE, knock_line, knock_throw_lines

        seats, throws = read_knock(self.header, self.events)
        self.title_line = KNOCK_TITLE
        self.players = [knock_line(seat) for seat in seats]
        rounds = len({throw.round for throw in throws}) > 1
        self.steps = [
            (
                f"Throw {throw.no}" + (f", round {throw.round}" if rounds else ""),
                knock_throw_lines(throw, seats),
            )
            for throw in throws
            if throw.notable
        ]
