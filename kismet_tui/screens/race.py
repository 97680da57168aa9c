"""The race game's screen: the circle of 11 cards around the three dice, one key per card.

Keys a..k grab the card with that letter (one key press sends the grab), p passes; a click
on a card grabs it and the Pass button under the clock passes, by the same action as the key
(GameScreen.action_click), sent the moment the click is read. The
countdown to the roll and the time left to grab are drawn from the engine's deadline and the
client's estimate of the host's clock, ten times a second. Which cards match is never marked
while the round runs: seeing it is the game.
"""

from __future__ import annotations

from typing import cast

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical
from textual.widgets import Static

from ..rules.base import Plain
from ..rules.race_types import Note, PlayerAction, View
from ..widgets.art import big_card_lines, card_lines, die_lines, seat_colour, side_by_side
from ..widgets.glyphs import glyph
from ..widgets.links import LinkText, clickable
from ..widgets.names import fit
from .game import GameScreen, MoveLog
from .offers import GAME_ACTIONS, Seen, offered

KEYS = "abcdefghijk"
CANVAS_W, CANVAS_H = 56, 20
# Where each place of the circle is drawn (x, y of the card's top-left), clockwise from the top.
PLACES = [
    (12, 0),
    (24, 0),
    (36, 0),
    (46, 4),
    (48, 8),
    (46, 12),
    (30, 16),
    (18, 16),
    (2, 12),
    (0, 8),
    (2, 4),
]
DICE_AT = (16, 4)
CLOCK_AT, CLOCK_W = (10, 11), 36


class Layout:
    """The circle's geometry: the 80x24 one, or one half as large again (big cards) for a
    terminal with room (at least BIG_ROOM)."""

    def __init__(self, scale: float, big: bool) -> None:
        self.big = big
        self.width, self.height = int(CANVAS_W * scale), int(CANVAS_H * scale)
        self.places = [(int(x * scale), int(y * scale)) for x, y in PLACES]
        self.dice_at = (
            int(DICE_AT[0] * scale) + (4 if big else 0),
            int(DICE_AT[1] * scale) + (1 if big else 0),
        )
        self.clock_at = (int(CLOCK_AT[0] * scale), int(CLOCK_AT[1] * scale) + (2 if big else 0))
        self.clock_w = int(CLOCK_W * scale)


NORMAL, BIG = Layout(1, False), Layout(1.5, True)
BIG_ROOM = (120, 34)


def layout_for(width: int, height: int) -> Layout:
    return BIG if width >= BIG_ROOM[0] and height >= BIG_ROOM[1] else NORMAL


class Canvas:
    """A grid of characters with styles, for drawing pieces at fixed places."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[(" ", Style())] * width for _ in range(height)]

    def blit(self, lines: list[Text], x: int, y: int, link: Style | None = None) -> None:
        """Draw `lines` with their top-left at (x, y); `link` (widgets/links.py) added to
        every cell they cover makes the piece clickable."""
        linked: dict[Style, Style] = {}  # one combined style per style: runs stay runs (text())
        for dy, line in enumerate(lines):
            row = y + dy
            if not 0 <= row < self.height:
                continue
            styles = [
                line.style if isinstance(line.style, Style) else Style.parse(line.style or "")
            ] * len(line.plain)
            for span in line.spans:
                span_style = (
                    span.style if isinstance(span.style, Style) else Style.parse(span.style)
                )
                for i in range(span.start, min(span.end, len(styles))):
                    styles[i] = span_style
            if link is not None:
                styles = [linked.setdefault(style, style + link) for style in styles]
            for dx, char in enumerate(line.plain):
                col = x + dx
                if 0 <= col < self.width:
                    self.cells[row][col] = (char, styles[dx])

    def centred(self, text: Text, y: int, x0: int = 0, x1: int | None = None) -> None:
        x1 = self.width if x1 is None else x1
        self.blit([text], x0 + max(0, (x1 - x0 - text.cell_len) // 2), y)

    def text(self) -> Text:
        """The grid as one Text; runs of one style become one span (far cheaper to draw)."""
        out = Text(no_wrap=True, overflow="crop")
        for index, row in enumerate(self.cells):
            if index:
                out.append("\n")
            run: list[str] = []
            run_style = None
            for char, style in row:
                if style is not run_style and run:
                    out.append("".join(run), run_style)
                    run = []
                run_style = style
                run.append(char)
            if run:
                out.append("".join(run), run_style)
        return out


def seconds_left(deadline: int | None, now: int) -> str:
    if deadline is None:
        return ""
    left = max(0, deadline - now)
    return f"{left / 1000:.1f}"


def render_circle(
    view: View, names: list[str], layout: Layout = NORMAL, clicks: bool = False
) -> Text:
    """The cards and the dice; the clock lines in the middle are a widget of their own
    (render_clock), so the countdown never redraws the whole circle. `clicks`: a click on a
    card grabs it."""
    canvas = Canvas(layout.width, layout.height)
    draw = big_card_lines if layout.big else card_lines
    phase = view.get("phase")
    for pos, (x, y) in enumerate(layout.places):
        card = view["circle"][pos] if pos < len(view["circle"]) else None
        if card is None:
            canvas.blit(draw(None, None), x, y)
            continue
        owner = card.get("grabbed_by") if phase == "grabbing" else None
        state = "grabbed" if owner is not None else "open"
        canvas.blit(
            draw(
                card["number"],
                card["chip"],
                KEYS[pos],
                owner=names[owner] if owner is not None else None,
                owner_colour=seat_colour(owner),
                state=state,
            ),
            x,
            y,
            clickable(f"click('grab({pos})')") if clicks else None,
        )
    # The dice in the middle: dim before the first roll and during the countdown.
    dice = view.get("dice") or []
    fresh = phase in ("grabbing", "pause", "over")
    blocks = [
        die_lines(dice[i] if i < len(dice) and fresh else None, coloured=False) for i in range(3)
    ]
    dx, dy = layout.dice_at
    canvas.blit(side_by_side(blocks, gap=1), dx + 1, dy)
    pile = Text(f"draw pile: {view.get('pile_count', 0)}", Style(color="bright_black"))
    cx, cy = layout.clock_at
    canvas.centred(pile, cy + 3, cx, cx + layout.clock_w)
    return canvas.text()


def render_clock(
    view: View, names: list[str], me: int | None, now_ms: int, buttons: Text | None = None
) -> Text:
    """Two centred lines under the dice: the countdown, the time to grab, or the reveal;
    while grabbing, the second line holds `buttons` (Pass)."""
    phase = view.get("phase")
    status = Text()
    detail = Text()
    if phase == "countdown":
        status.append(
            f"Dice in {seconds_left(view.get('deadline'), now_ms)} s",
            Style(bold=True, color="bright_yellow"),
        )
        detail.append(f"round {view.get('round', 0) + 1}", Style(color="bright_black"))
    elif phase == "grabbing":
        mine = next((g for g in view.get("grabs") or [] if g["seat"] == me), None)
        if me is not None and mine is None and me not in (view.get("passed") or []):
            status.append("GRAB! ", Style(bold=True, color="bright_green"))
        elif mine is not None:
            status.append(
                f"You grabbed card {KEYS[mine['pos']]} {glyph('·')} ",
                Style(bold=True, color=seat_colour(me)),
            )
        elif me is not None:
            status.append(f"You passed {glyph('·')} ", Style(bold=True))
        status.append(f"{seconds_left(view.get('deadline'), now_ms)} s left")
        if buttons is not None:
            detail = buttons
    elif phase == "pause":
        status.append(reveal_words(view, names), Style(bold=True))
        detail.append(
            f"next round in {seconds_left(view.get('deadline'), now_ms)} s",
            Style(color="bright_black"),
        )
    elif phase == "over":
        status.append("The game is over", Style(bold=True))
    return Text("\n").join([status, detail])


def reveal_words(view: View, names: list[str]) -> str:
    last = view.get("last_round")
    if last is not None and last["wiped"]:
        return "No match: a new circle"
    parts = []
    for reveal in last["reveals"] if last is not None else []:
        who = fit(names[reveal["seat"]], 8)
        parts.append(f"{who} {reveal['number']}{glyph('✓') if reveal['right'] else glyph('✗')}")
    return " ".join(parts) if parts else "Nobody grabbed"


def render_players(view: View, names: list[str], me: int | None, name_width: int = 9) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    grabs = {g["seat"]: g for g in view.get("grabs") or []}
    passed = set(view.get("passed") or [])
    grabbing = view.get("phase") == "grabbing"
    for player in view.get("players") or []:
        seat = player["seat"]
        text.append(glyph("▶") if seat == me else " ", Style(color=seat_colour(seat)))
        text.append(
            fit(names[seat], name_width, pad=True), Style(color=seat_colour(seat), bold=True)
        )
        text.append(f"{player['score']:>3}pt", Style(bold=True))
        text.append(f" {player['pile_count']:>2}{glyph('▮')}", Style(color="bright_black"))
        if grabbing and seat in grabs:
            text.append(" " + glyph("✋"), Style(color=seat_colour(seat)))
        elif grabbing and seat in passed:
            text.append(" " + glyph("–"))
        elif player.get("away"):
            text.append(" z", Style(color="bright_black"))
        text.append("\n")
    return text


class RaceScreen(GameScreen[View, PlayerAction, Note]):
    RULESET = "race"
    BINDINGS = (
        [
            Binding(key, f"grab({pos})", "Grab", key_display="a-k", show=pos == 0)
            for pos, key in enumerate(KEYS)
        ]
        + [Binding("p", "pass", "Pass")]
        + GameScreen.COMMON_BINDINGS
    )
    NEW_KEYS_LATER_S = (
        0.3  # a-k joins the footer 0.3 s after the dice land, acting from the first moment
    )
    DEFAULT_CSS = """
    RaceScreen #board { width: 56; height: 20; layers: cards clock; }
    RaceScreen #circle { width: 56; height: 20; layer: cards; }
    RaceScreen #clock { layer: clock; offset: 10 11; width: 36; height: 2; text-align: center; }
    RaceScreen #side { width: 1fr; height: 100%; border-left: solid $primary; }
    RaceScreen #players { height: auto; max-height: 9; }
    """

    def compose_body(self) -> ComposeResult:
        with Horizontal():
            with Container(id="board"):
                yield LinkText(id="circle")
                yield LinkText(id="clock")
            with Vertical(id="side"):
                yield Static(id="players")
                yield MoveLog(
                    id="movelog", classes="movelog", wrap=True, markup=False, min_width=16
                )

    clock_shown: str | None = None
    geometry: Layout = NORMAL

    def on_resize(self, event: events.Resize) -> None:
        """Bigger cards when the terminal has room; the board keeps its fixed size between
        resizes, so a redraw never needs a relayout."""
        layout = layout_for(*self.app.size)
        if layout is not self.geometry:
            self.geometry = layout
            board, circle, clock = (
                self.query_one(selector) for selector in ("#board", "#circle", "#clock")
            )
            for widget in (board, circle):
                widget.styles.width, widget.styles.height = layout.width, layout.height
            clock.styles.offset = layout.clock_at
            clock.styles.width = layout.clock_w
            if self.game is not None:
                self.redraw()

    def on_mount(self) -> None:
        # (Textual runs GameScreen.on_mount as well: handlers are called up the class tree.)
        self.set_interval(0.1, self.tick)

    def tick(self) -> None:
        """Ten times a second: the clock lines only, and only when they read differently."""
        view = self.view()
        buttons = self.buttons([("Pass", "pass")]) if view.get("phase") == "grabbing" else None
        clock = render_clock(view, self.names, self.seat, self.now_ms(), buttons)
        if clock.plain != self.clock_shown:
            self.clock_shown = clock.plain
            self.query_one("#clock", Static).update(clock, layout=False)

    def redraw(self) -> None:
        view = self.view()
        # The circle has a fixed size: no relayout needed, which keeps a redraw cheap.
        self.circle.update(
            render_circle(view, self.names, self.geometry, clicks=self.seat is not None),
            layout=False,
        )
        self.clock_shown = None
        self.tick()
        room = self.app.size.width - self.geometry.width  # the side panel's width
        self.query_one("#players", Static).update(
            render_players(view, self.names, self.seat, max(9, min(20, room - 18)))
        )

    @property
    def circle(self) -> Static:
        return self.query_one("#circle", Static)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.game is None:
            return True
        if action in GAME_ACTIONS[self.RULESET]:
            # Only while the engine takes them (grabbing, until you grabbed or passed): a
            # grab in the countdown is refused. Every letter goes with any grab, so the
            # footer's "a-k" stays whichever places are empty.
            return offered(self.RULESET, action, parameters, self.seen())
        return super().check_action(action, parameters)

    def seen(self) -> Seen:
        """What the keys depend on (screens/offers.py)."""
        return Seen(self.seat, self.view(), self.legal_now())

    def answer_not_offered(self, name: str, params: tuple[object, ...]) -> bool:
        """A grab or a pass in the countdown is not offered (no a-k in the footer then), but
        a hand that is too quick (a key or a click) still hears why: sent, the host answers
        in words."""
        if (
            name not in ("grab", "pass")
            or self.seat is None
            or self.view().get("phase") != "countdown"
        ):
            return False  # nothing to say
        if name == "pass":
            self.action_pass()
        else:
            self.action_grab(int(cast(int, params[0])))
        return True

    def engine_action(self, name: str, params: tuple[object, ...]) -> Plain | None:
        if name == "pass":
            return {"type": "pass"}
        if name == "grab":
            card = self.view()["circle"][cast(int, params[0])]
            return {
                "type": "grab",
                "card": params[0],
                **({"id": card["id"]} if card is not None else {}),
            }
        return None

    def draw_buttons(self) -> None:
        if self.game is not None and self.is_mounted:
            self.tick()

    def action_grab(self, pos: int) -> None:
        view = self.view()
        card = view["circle"][pos]
        if card is None:
            self.refuse("There is no card at that place.")
            return
        self.act({"type": "grab", "card": pos, "id": card["id"]})

    def action_pass(self) -> None:
        self.act({"type": "pass"})
