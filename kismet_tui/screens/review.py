"""The dice review on screen (kismet_tui/review/, docs/review.md): turn by turn, the dice,
the choice made, the perfect player's, the cost, and the scorecard as it stood.

Opened from the end box (`v`), the records' games (`v` on a dice game kept on this
computer) and `kismet-replay` (`v`). Keys: → / n the next turn, ← / p the previous, s the
next seat, escape back; each has a button too, so the mouse steps as well. The review is
worked out in a thread (a whole game takes some tens of milliseconds, and loading the table
a tenth of a second). Before the optimal table is built the screen says so and offers to
build it and wait (solver/background.py, the same build the hard bot starts); it never grades
with the estimate.

`EndReview` is the end box's part: the seat's cost and its three costliest decisions.
`review_screen` opens the review of any game: this one for dice, screens/review_rounds.py's
for race and knock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Static

from ..rules import GAMES
from ..widgets.footer import KeyFooter
from ..widgets.toosmall import TooSmall

if TYPE_CHECKING:
    from ..review.dice import Decision, DiceReview, SeatReview

NOT_BUILT_END = (
    "The dice review waits for the perfect player's table, not built yet (about "
    "10 s, once). v: build it and wait."
)
NOT_BUILT = (
    "The perfect player's table is not built yet: the review grades against it and "
    "never guesses. Building it takes about 10 seconds, once."
)


REVIEWED = GAMES  # the rulesets with a review: every game has one


def review_screen(
    header: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    seat: int = 0,
    build: bool = False,
) -> Screen[None]:
    """The review screen of the game logged as `header` + `events` (one of REVIEWED);
    `seat` and `build` are the dice review's (ReviewScreen)."""
    from .review_rounds import KnockReviewScreen, RaceReviewScreen

    ruleset = header.get("ruleset")
    if ruleset == "race":
        return RaceReviewScreen(header, events)
    if ruleset == "knock":
        return KnockReviewScreen(header, events)
    return ReviewScreen(header, events, seat, build)


def is_review(screen: object) -> bool:
    """The screen is a review (of any game): its own keys step there."""
    from .review_rounds import StepsReviewScreen

    return isinstance(screen, (ReviewScreen, StepsReviewScreen))


def card_text(card: Mapping[str, int | None]) -> Text:
    """The scorecard as it stood: Basic boxes on the left, the Kismet section on the right."""
    from ..rules import dice as rules

    def cell(box: str) -> str:
        points = card.get(box)
        return f"{rules.BOX_NAMES[box]:<22}{'-' if points is None else points:>4}"

    totals = rules.card_totals(card)
    left = [cell(box) for box in rules.BASIC_BOXES]
    left += [
        f"{'Basic':<22}{totals['basic']:>4}",
        f"{'Bonus':<22}{totals['bonus']:>4}",
        f"{'Total':<22}{totals['total']:>4}",
    ]
    text = Text()
    for row, box in enumerate(rules.KISMET_BOXES):
        text.append(f"  {left[row]:<28}", style="bold" if row == len(left) - 1 else "")
        text.append(f"  {cell(box)}\n")
    return text


def decision_text(decision: Decision) -> Text:
    """One decision in two lines: the throw, the dice and the choice; the best and the cost."""
    text = Text()
    text.append(f"  Throw {decision.throw}  ", style="bold")
    text.append(" ".join(map(str, decision.dice)), style="bold")
    text.append(f"   {decision.chosen.words(past=True)}")
    if decision.by_clock:
        text.append(" (the clock played it)", style="bright_black")
    best = "the same" if decision.chosen == decision.best else decision.best.words()
    text.append(f"\n           best: {best}", style="bright_black")
    text.append(
        f"   cost {decision.cost:.2f}\n", style="bold red" if decision.cost >= 0.005 else "green"
    )
    return text


class ReviewScreen(Screen[None]):
    """The review of one dice game, a turn of one seat at a time."""

    BINDINGS = [
        Binding("left,p", "step(-1)", "Previous turn", key_display="←"),
        Binding("right,n", "step(1)", "Next turn", key_display="→"),
        Binding("s", "next_seat", "Next player"),
        Binding("w", "wait", "Build and wait"),
        Binding("escape,q", "close", "Back", key_display="esc"),
    ]
    DEFAULT_CSS = """
    ReviewScreen #review-heading { height: auto; padding: 0 1; }
    ReviewScreen #review-body { height: 1fr; padding: 0 1; }
    ReviewScreen #review-buttons { height: 1; padding: 0 1; }
    ReviewScreen #review-buttons Button { margin-right: 2; }
    """

    def __init__(
        self,
        header: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        seat: int = 0,
        build: bool = False,
    ) -> None:
        """`build`: the player already chose to wait for the table (the end box offered it):
        start its build at once if it is missing."""
        super().__init__()
        self.header, self.events = header, list(events)
        self.seat = seat
        self.build = build
        self.turn_at = 0  # the index into the seat's turns
        self.review: DiceReview | None = None
        self.missing = False  # the table is not built (and not waited for)
        self.waiting = False
        self.stop_listening: Any = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Working out the review...", style="bold"), id="review-heading")
        # (Not focusable: its own arrow keys would take ← and → from the turns.)
        with VerticalScroll(id="review-body", can_focus=False):
            yield Static("", id="review-turn")
        with Horizontal(id="review-buttons"):
            yield Button("< Previous turn", id="review-previous", compact=True)
            yield Button("Next turn >", id="review-next", compact=True)
            yield Button("Next player", id="review-seat", compact=True)
            yield Button("Build it and wait", id="review-wait", compact=True)
            yield Button("Back", id="review-back", compact=True)
        yield TooSmall()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_buttons()
        self.run_worker(self.work_out, thread=True, exclusive=True, group="review")

    def on_unmount(self) -> None:
        if self.stop_listening is not None:
            self.stop_listening()

    def work_out(self) -> None:
        """(In a thread.) The review, or word that the table is not built."""
        from ..review import optimal
        from ..review.dice import review_dice_game

        V = optimal.loaded()
        if V is None:
            self.app.call_from_thread(self.table_missing)
            return
        review = review_dice_game(self.header, self.events, V)
        self.app.call_from_thread(self.reviewed, review)

    def table_missing(self) -> None:
        from ..review import optimal

        build = optimal.build_state()
        if build is not None and build[0] not in ("ready", "failed"):
            self.follow_build()  # being built already (a hard bot or a hint asked): wait for it
            return
        if self.build and build is None:
            self.action_wait()
            return
        self.missing = True
        words = NOT_BUILT
        if build is not None and build[0] == "failed":
            words = f"The perfect player's table could not be built: {build[2]}"
        self.query_one("#review-heading", Static).update(Text(words, style="bold"))
        self.query_one("#review-turn", Static).update(
            Text("Press w (or the button) to build it and wait: the review shows once it is ready.")
        )
        self.show_buttons()

    def action_wait(self) -> None:
        from ..review import optimal

        optimal.start_build()
        self.follow_build()

    def follow_build(self) -> None:
        from ..review import optimal

        self.missing, self.waiting = False, True
        if self.stop_listening is None:
            self.stop_listening = optimal.listen(
                lambda: self.app.call_from_thread(self.build_moved_on)
            )
        self.build_moved_on()
        self.show_buttons()

    def build_moved_on(self) -> None:
        from ..review import optimal

        build = optimal.build_state()
        if build is None or not self.waiting or not self.is_attached:
            return
        state, fraction, _why = build
        if state == "ready":
            self.waiting = False
            self.run_worker(self.work_out, thread=True, exclusive=True, group="review")
        elif state == "failed":
            self.waiting = False
            self.table_missing()
        else:
            self.query_one("#review-heading", Static).update(
                Text(f"Building the perfect player's table: {int(100 * fraction)} %", style="bold")
            )
            self.query_one("#review-turn", Static).update(
                Text(
                    "The review shows here as soon as it is ready (once built, the table is kept). "
                    "Escape leaves: the build goes on.",
                    style="bright_black",
                )
            )

    def reviewed(self, review: DiceReview) -> None:
        self.review = review
        self.seat = min(self.seat, len(review.seats) - 1)
        self.turn_at = 0
        self.show()

    # ---- what it shows ---------------------------------------------------------------------
    def turns(self) -> list[list[Decision]]:
        """The seat's decisions, a list per turn."""
        if self.review is None:
            return []
        grouped: list[list[Decision]] = []
        for decision in self.review.seats[self.seat].decisions:
            if grouped and grouped[-1][0].turn == decision.turn:
                grouped[-1].append(decision)
            else:
                grouped.append([decision])
        return grouped

    def seat_review(self) -> SeatReview | None:
        return self.review.seats[self.seat] if self.review is not None else None

    def show(self) -> None:
        from ..review.text import seat_summary

        seat = self.seat_review()
        if seat is None:
            return
        turns = self.turns()
        heading = Text(seat_summary(seat), style="bold")
        if not turns:
            heading.append("\nNo decisions to review.")
            self.query_one("#review-turn", Static).update("")
        else:
            decisions = turns[self.turn_at]
            heading.append(
                f"\nTurn {decisions[0].turn} ({self.turn_at + 1} of {len(turns)}): "
                f"{sum(d.cost for d in decisions):.2f} given up; the scorecard as it stood:",
                style="",
            )
            body = card_text(decisions[0].card)
            body.append("\n")
            for decision in decisions:
                body.append_text(decision_text(decision))
            self.query_one("#review-turn", Static).update(body)
        self.query_one("#review-heading", Static).update(heading)
        self.show_buttons()

    def show_buttons(self) -> None:
        turns = len(self.turns())
        self.query_one("#review-previous", Button).disabled = self.turn_at <= 0
        self.query_one("#review-next", Button).disabled = self.turn_at >= turns - 1
        self.query_one("#review-seat", Button).display = (
            self.review is not None and len(self.review.seats) > 1
        )
        self.query_one("#review-wait", Button).display = self.missing
        self.refresh_bindings()

    # ---- keys and buttons ------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            step = parameters[0] if parameters else 0
            at = self.turn_at + (step if isinstance(step, int) else 0)
            return self.review is not None and 0 <= at < len(self.turns())
        if action == "next_seat":
            return self.review is not None and len(self.review.seats) > 1
        if action == "wait":
            return self.missing
        return True

    def action_step(self, step: int) -> None:
        at = self.turn_at + step
        if self.review is not None and 0 <= at < len(self.turns()):
            self.turn_at = at
            self.show()

    def action_next_seat(self) -> None:
        if self.review is not None and len(self.review.seats) > 1:
            self.seat = (self.seat + 1) % len(self.review.seats)
            self.turn_at = 0
            self.show()

    def action_close(self) -> None:
        self.dismiss()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "review-previous": lambda: self.action_step(-1),
            "review-next": lambda: self.action_step(1),
            "review-seat": self.action_next_seat,
            "review-wait": self.action_wait,
            "review-back": self.action_close,
        }
        actions[event.button.id or ""]()


class EndReview(Static):
    """The end box's lines for one seat of a dice game: its cost and its three costliest
    decisions, worked out in a thread; or, before the table is built, how to get them."""

    def __init__(
        self, header: Mapping[str, Any], events: Sequence[Mapping[str, Any]], seat: int | None
    ) -> None:
        from ..review import optimal

        # Known at once, without loading anything: whether there is a table to grade with
        # (so the box is drawn once with its words, not changed a moment later).
        self.built = optimal.built_now()
        words = (
            "Working out your dice review..."
            if self.built
            else NOT_BUILT_END
            if self.built is False
            else "The dice review waits for the perfect player's table, being built now: "
            "v follows it."
        )
        super().__init__(Text(words, style="bright_black"), id="end-review")
        self.header, self.events, self.seat = header, list(events), seat

    def on_mount(self) -> None:
        if self.built:
            self.run_worker(self.work_out, thread=True, exclusive=True, group="end-review")

    def table_maybe_built(self) -> None:
        """Back from the review screen, where the player may have had the table built: the
        box then gives the lines it could not give before."""
        from ..review import optimal

        if not self.built and optimal.built_now():
            self.built = True
            self.update(Text("Working out your dice review...", style="bright_black"))
            self.run_worker(self.work_out, thread=True, exclusive=True, group="end-review")

    def work_out(self) -> None:
        from ..review import optimal
        from ..review.dice import review_dice_game

        V = optimal.loaded()
        if V is None:  # (damaged, or gone since)
            self.app.call_from_thread(self.update, Text(NOT_BUILT_END, style="bright_black"))
            return
        review = review_dice_game(self.header, self.events, V)
        self.app.call_from_thread(self.update, self.lines(review))

    def lines(self, review: DiceReview) -> Text:
        from ..review.text import end_lines

        text = Text()
        if self.seat is not None:
            said = end_lines(review.seats[self.seat])
            text.append(said[0] + "\n", style="bold")
            text.append("\n".join(said[1:]))
        else:  # a watcher's: each seat's cost
            text.append("Points given up to the perfect player: ", style="bold")
            text.append(", ".join(f"{seat.name} {seat.total_cost:.1f}" for seat in review.seats))
        return text
