"""The end of a game: ranking and scores, a rematch at the same table, or back to the lobby,
by key or by the buttons under the ranking.

A seat whose player left the game for good is ranked last and says "left the game": the
records rate it so (protocol/leavers.py).

Under the ranking, one line says whether the game's chance was verified (the client checked
the revealed seed against the commit and every die and card, net/client.py), or what did not
match, in plain words. After a dice game the box also gives your dice review's cost and its
three costliest decisions (screens/review.py EndReview); `v` opens the whole review (a race
or knock game's too: screens/review_rounds.py)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.host_messages import TableShown

from ..app_ref import OnKismetApp
from ..messages import FairnessChecked, LeaveAsked, RematchAsked, TableChanged
from ..rematch import rematch_line
from ..review.words import learned_lines
from ..rules.base import Plain
from ..rules.verify import Verification
from ..widgets.art import seat_colour
from ..widgets.footer import KeyFooter
from ..widgets.glyphs import glyph
from ..widgets.links import LinkText, button
from ..widgets.names import fit
from ..widgets.toosmall import TooSmall
from .review import REVIEWED, EndReview, review_screen


def ranking(ruleset: str, result: Plain, left: Collection[int] = ()) -> list[tuple[int, int, int]]:
    """(place, seat, score) best first; equal scores share a place. Every engine's `scores`
    are higher-is-better (knock's are its minus points negated), so one order serves all.
    Seats in `left` (their players left the game for good, protocol/leavers.py) come last,
    sharing the last place whatever they scored: so the records rank them."""
    scores = result.get("scores") or []

    def standing(seat: int) -> tuple[bool, int]:
        return (seat in left, 0 if seat in left else -scores[seat])

    order = sorted(range(len(scores)), key=lambda s: (*standing(s), s))
    out = []
    place = 0
    previous: tuple[bool, int] | None = None
    for index, seat in enumerate(order):
        if standing(seat) != previous:
            place = index + 1
            previous = standing(seat)
        out.append((place, seat, scores[seat]))
    return out


def fairness_text(verification: Verification | None) -> Text | None:
    """The verification line: None when there is nothing to say (a replay, an old game)."""
    if verification is None:
        return None
    if verification.ok:
        return Text(
            "✓ Verified: every die and card came from the seed the host committed "
            "to before the game.",
            style="green",
        )
    return Text(f"✗ Not verified: {verification.words}", style="bold red")


def render_result(
    ruleset: str, result: Plain, names: list[str], me: int | None, left: Collection[int] = ()
) -> Text:
    text = Text()
    winners = set(result.get("winners") or []) - set(left)
    if me is not None and me in winners:
        text.append(
            "You win!\n\n" if len(names) > 1 else "Well played!\n\n",
            Style(bold=True, color="bright_green"),
        )
    else:
        text.append("Game over\n\n", Style(bold=True))
    unit = "minus points" if ruleset == "knock" else "points"
    minus = result.get("minus_points") if ruleset == "knock" else None
    rows = ranking(ruleset, result, left)
    # The names' column is as wide as the longest name (at most 20): with short names a row
    # with "(you)  left the game" still fits the box.
    width = min(20, max((cell_len(names[seat]) for _, seat, _ in rows), default=0))
    for place, seat, score in rows:
        if minus is not None and seat < len(minus):
            score = minus[seat]  # shown as the game counts them: 33 minus points, not -33
        mark = glyph("★") if seat in winners else " "
        text.append(f" {mark} {place}. ", Style(bold=seat in winners))
        text.append(fit(names[seat], width, pad=True), Style(color=seat_colour(seat), bold=True))
        text.append(f" {score:>5} {unit}")
        if seat == me:
            text.append("  (you)", Style(color="bright_black"))
        if seat in left:
            text.append("  left the game", Style(color="bright_black"))
        text.append("\n")
    return text


def clock_time(host_ms: int) -> str:
    """A host time (ms since 1970) as this computer's clock shows it: "20:14"."""
    return datetime.fromtimestamp(host_ms / 1000).strftime("%H:%M")


END_BOX_TEXT_WIDTH = 58  # the box's 64 cells less its border and padding (EndScreen's CSS)


def records_line(table: TableShown | None, my_id: int | None) -> Text:
    """Under the ranking: my rating change or new personal best (once the host's records
    took the game in), and the evening's standings at a table of several: games each seat's
    player won at any of the host's tables since its evening began."""
    text = Text()
    seats = (table.get("seats") or []) if table is not None else []
    mine = next(
        (seat for seat in seats if my_id is not None and seat.get("client_id") == my_id), None
    )
    outcome = mine.get("outcome") if mine is not None else None
    if outcome is not None and outcome.get("best"):
        text.append("New personal best! ", Style(bold=True, color="bright_green"))
    if outcome is not None and isinstance(outcome.get("change"), int):
        text.append(f"Your rating: {outcome['rating']} ({outcome['change']:+d})", Style(bold=True))
    if len(seats) > 1 and any(seat.get("wins") for seat in seats):
        if text:
            text.append("\n")
        since = table.get("evening_since") if table is not None else None
        # A host since protocol 3's evening standings count every table since the evening
        # began (server/evening.py); an older host's, this table's since it opened.
        label = (
            f"Won tonight (since {clock_time(since)}): "
            if isinstance(since, int) and not isinstance(since, bool)
            else "Won at this table: "
        )
        # Broken between players, never inside one (not "... · Bo" and "0" a line below).
        line, dot = label, f" {glyph('·')} "
        for n, seat in enumerate(seats):
            entry = f"{fit(str(seat.get('name')), 14)} {seat.get('wins', 0)}"
            if n and cell_len(line + dot + entry) > END_BOX_TEXT_WIDTH:
                text.append(line + f" {glyph('·')}\n", Style(color="bright_black"))
                line = entry
            else:
                line += (dot if n else "") + entry
        text.append(line, Style(color="bright_black"))
    return text


def end_keys(can_rematch: bool, can_leave: bool) -> Text:
    """The line under the ranking: the keys that work here, in words, each a button that does
    what its key does (a key that does nothing here has no button)."""
    parts = []
    if can_rematch:
        parts.append(button("r: play again", "rematch"))
    parts.append(button("escape: see the board", "close"))
    if can_leave:
        parts.append(button("ctrl+l: lobby", "lobby"))
    return Text("  ").join(parts)


class EndScreen(OnKismetApp, ModalScreen[None]):
    """The ranking over the board. Closing it (escape) keeps the end's keys on the game
    screen (r, enter for this box again); every member sees who wants another game."""

    # Two quick taps on a phone (a double click) would light the box's words as a selection.
    ALLOW_SELECT = False

    DEFAULT_CSS = """
    EndScreen { align: center middle; }
    /* The box sits in a band as wide as the screen: no cut-off words of the board show
       beside it (the board's rows above and below stay whole). */
    EndScreen > #band { width: 100%; height: auto; max-height: 100%; align: center middle; background: $background; }
    EndScreen #band > Vertical {
        width: 64; height: auto; max-height: 100%; overflow-y: auto;
        border: heavy $accent; background: $surface; padding: 1 2;
    }
    EndScreen #rematch { color: $warning; height: auto; }
    EndScreen #records-line { height: auto; }
    EndScreen #learned { height: auto; }
    EndScreen #band > Vertical.with-review { width: 78; }
    EndScreen #end-review { height: auto; margin-top: 1; }
    """
    BINDINGS = [
        Binding("r", "rematch", "Play again"),
        Binding("escape,enter", "close", "See the board"),
        Binding("ctrl+l", "lobby", "Lobby"),
        Binding("v", "review", "Review"),
        # A modal screen hides the app's keys: its help (which starts with what the rating
        # change means) is offered here again.
        Binding("f1,question_mark", "app.help", "Help", key_display="?"),
    ]

    def __init__(
        self,
        ruleset: str,
        result: Plain,
        names: list[str],
        me: int | None,
        left: Collection[int] = (),
    ) -> None:
        super().__init__()
        self.ruleset = ruleset
        self.result = result
        self.names = names
        self.me = me
        self.left = left  # the seats whose players left the game for good

    def compose(self) -> ComposeResult:
        # A dice game's box is wider: the review's lines of the costliest decisions fit whole.
        with (
            Container(id="band"),
            Vertical(classes="with-review" if self.ruleset == "dice" else ""),
        ):
            yield Static(
                render_result(self.ruleset, self.result, self.names, self.me, self.left),
                id="ranking",
            )
            line = fairness_text(self.client.verification)
            yield Static(line or "", id="fairness")
            line_now = records_line(self.client.table, self.client.client_id)
            records = Static(line_now, id="records-line")
            records.display = bool(line_now)  # no empty line before the host has a word
            yield records
            learned_now = self.learned_text()
            learned = Static(learned_now, id="learned")
            learned.display = bool(learned_now)
            yield learned
            if self.ruleset == "dice" and self.client.header is not None:
                yield EndReview(
                    self.client.header, self.client.applied_events(), self.reviewed_seat()
                )
            yield Static(Text(self.rematch_words()), id="rematch")
            yield LinkText(end_keys(self.can_rematch(), self.client.live), id="end-keys")
        yield TooSmall()
        yield KeyFooter()

    def learned_text(self) -> Text:
        """What the game's log says of each player (kismet_tui/review): race reactions or
        knock's missed chances; nothing for a game without a log to read."""
        header = self.client.header
        if not header:
            return Text()
        title, lines = learned_lines(self.ruleset, header, self.client.applied_events())
        if not lines:
            return Text()
        text = Text(title + "\n", style="bold")
        text.append("\n".join(lines))
        return text

    def reviewed_seat(self) -> int | None:
        """Whose dice the box reviews: mine, or a solo game's seat (None: each seat's cost)."""
        if self.me is not None:
            return self.me
        return 0 if len(self.names) == 1 else None

    def can_rematch(self) -> bool:
        return self.me is not None and self.client.live

    def rematch_words(self) -> str:
        return rematch_line(self.client.table)

    @on(TableChanged)
    def table_changed(self, message: TableChanged) -> None:
        """Who wants another game, and the records' word on the game, as they come."""
        if not self.is_mounted:
            return
        self.query_one("#rematch", Static).update(Text(self.rematch_words()))
        line_now = records_line(self.client.table, self.client.client_id)
        records = self.query_one("#records-line", Static)
        records.update(line_now)
        records.display = bool(line_now)

    @on(FairnessChecked)
    def fairness_checked(self, message: FairnessChecked) -> None:
        if self.is_mounted:
            line = fairness_text(self.client.verification)
            self.query_one("#fairness", Static).update(line or message.words)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return self.can_rematch()
        if action == "lobby":
            return self.client.live
        if action == "review":
            return self.ruleset in REVIEWED and self.client.header is not None
        return True

    def action_review(self) -> None:
        """The whole review, on a screen of its own (screens/review.py)."""
        if self.client.header is not None:
            self.app.push_screen(
                review_screen(
                    self.client.header,
                    self.client.applied_events(),
                    self.reviewed_seat() or 0,
                    build=True,
                ),
                lambda _: self.review_back(),
            )

    def review_back(self) -> None:
        """The dice review's lines, if the table was built meanwhile."""
        for review in self.query(EndReview):
            review.table_maybe_built()

    def action_rematch(self) -> None:
        self.post_message(RematchAsked())

    def action_close(self) -> None:
        self.dismiss()

    def action_lobby(self) -> None:
        self.post_message(LeaveAsked())
