"""The dice game's screen: five big dice, every player's scorecard side by side, the move log.

Keys: 1-5 hold/release a die, r throw, up/down choose a box (each throw offers the best
one until the player chooses), enter score it, h hint. By
mouse: a click on a die holds or releases it, on a box chooses it and on the chosen box scores
it; Throw, Score and Hint are buttons (each a key's action, by GameScreen.action_click).
The scorecard shows, in the column of the player to move, what the dice would score in each
open box (dim, with a dot; in a colour box the colour's letter, b r g, instead of the dot),
and the Basic section's progress towards the bonus. Each die has its colour written on it.
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ..rules import dice as rules
from ..rules.base import AnyGame, Plain
from ..rules.dice_types import Note, PlayerAction, View
from ..widgets.art import (
    BIG_DIE_HEIGHT,
    BIG_DIE_WIDTH,
    big_dice,
    die_lines,
    seat_colour,
    side_by_side,
    stack,
)
from ..widgets.glyphs import glyph
from ..widgets.lines import Lines
from ..widgets.links import LinkText, clickable, linked
from ..widgets.names import fit, fits
from .game import GameScreen, MoveLog
from .offers import ALL_HELD, GAME_ACTIONS, Seen, offered

if TYPE_CHECKING:  # (the advisor loads the solver: only its types here)
    from ..bots.advisor import Advise, Hint

SHORT = {
    "aces": "Aces",
    "deuces": "Deuces",
    "treys": "Treys",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "two_pair_same_color": "2 Pair Same C",
    "three_of_a_kind": "3 of a Kind",
    "straight": "Straight",
    "flush": "Flush",
    "full_house": "Full House",
    "full_house_same_color": "Full House S C",
    "four_of_a_kind": "4 of a Kind",
    "yarborough": "Yarborough",
    "kismet": "Kismet",
}
# At a crowded table (label_width 11) the two "same colour" boxes need shorter names still,
# or "Full House" and "Full House S C" would both read "Full House".
NARROW = {**SHORT, "two_pair_same_color": "2 Pair S C", "full_house_same_color": "Full Hse SC"}
LABEL_WIDTH = 14


def short_name(name: str, width: int) -> str:
    """A name for a scorecard column: whole if it fits; else without a bracketed remark and
    spaces ("Bot 2 (easy)" -> "Bot2"); else cut with an ellipsis ("Rosalind" -> "Ros…")."""
    for candidate in (
        name,
        re.sub(r"\s*\([^)]*\)", "", name).strip(),
        re.sub(r"\s*\([^)]*\)|\s", "", name),
    ):
        if candidate and fits(candidate, width):
            return candidate
    return fit(name.replace(" ", ""), width)


def column_names(names: list[str], width: int) -> list[str]:
    """Every seat's column heading; where cut names would look alike, initial + seat number."""
    shorts = [short_name(name, width) for name in names]

    def tag(seat: int) -> str:
        digits = re.search(r"\d+", names[seat])  # "Bot 3 (easy)" -> B3
        return f"{names[seat][:1]}{digits.group() if digits else seat + 1}"[:width]

    return [tag(i) if shorts.count(short) > 1 else short for i, short in enumerate(shorts)]


def column_width(players: int) -> int:
    return 5 if players <= 4 else 4


def label_width(players: int) -> int:
    """Box names are cut shorter at a crowded table, so eight columns and the dice fit 80."""
    return LABEL_WIDTH if players <= 4 else 11


def widths(seats: int, names: list[str], room: int) -> tuple[int, int, bool]:
    """(label width, column width, full box names) for a screen `room` cells wide: at 80
    columns the short names and narrow columns; with room to spare the full box names and
    columns wide enough for whole player names (the dice and the log keep 45 cells)."""
    label, width = label_width(seats), column_width(seats)
    if room < 110:
        return label, width, False
    full = max(len(rules.BOX_NAMES[box]) for box in rules.BOXES)
    spare = room - 45 - full
    longest = max((cell_len(name) for name in names), default=4)
    width = max(width, min(longest + 2, 14, spare // max(seats, 1)))
    return full, width, True


COLOUR_BOXES = ("two_pair_same_color", "flush", "full_house_same_color")


def fitting_colour(box: str, dice: list[int] | None, points: int) -> str | None:
    """The colour the dice fit a colour box in ("red"), or None (not a colour box, or the
    dice score nothing there). When a colour box scores, its dice are of one colour where it
    counts: the most common face's (the pairs, the full house, the five)."""
    if box not in COLOUR_BOXES or not points or not dice:
        return None
    most = max(set(dice), key=lambda face: (dice.count(face), face))
    return rules.COLOR[most]


def render_scorecard(
    view: View,
    names: list[str],
    me: int | None,
    cursor: str | None,
    room: int = 80,
    hint_box: str | None = None,
    clicks: bool = False,
) -> Text:
    """The scorecard of every seat side by side: one row per box, then bonus and total.
    `clicks`: a click on a box's row chooses that box (a player's card, not a watcher's)."""
    seats = view["seats"]
    label, width, full = widths(seats, names, room)
    box_label = rules.BOX_NAMES if full else SHORT if label >= LABEL_WIDTH else NARROW
    current = view.get("current")
    preview = view.get("preview") or {}
    out = Text(no_wrap=True, overflow="crop")
    out.append(f"{'':<{label}}")
    headings = column_names(names, width - 1)
    for seat in range(seats):
        style = Style(color=seat_colour(seat), bold=True, underline=seat == current)
        out.append(" " * (width - cell_len(headings[seat])) + headings[seat], style)
    out.append("\n")

    def box_row(box: str) -> None:
        chosen = box == cursor
        start = len(out)
        label_style = Style(
            reverse=chosen, color="bright_cyan" if box == hint_box else None, bold=box == hint_box
        )
        out.append(f"{box_label[box][:label]:<{label}}", label_style)
        for seat in range(seats):
            value = view["cards"][seat].get(box)
            if value is not None:
                out.append(f"{value:>{width}}", Style(bold=seat == me))
            elif seat == current and box in preview and preview[box].get("legal"):
                points = preview[box]["points"]
                colour = fitting_colour(box, view.get("dice"), points)
                # A colour box says which colour fits by its letter in place of the dot.
                cell = f"{colour[0] if colour else '·'}{points}"
                style = Style(
                    color="bright_yellow" if points else "bright_black",
                    reverse=chosen and seat == me,
                )
                out.append(f"{cell:>{width}}", style)
            else:
                out.append(f"{'':>{width}}")
        if clicks:
            out.stylize(clickable(f'click("choose({box!r})")'), start, len(out))
        out.append("\n")

    for box in rules.BASIC_BOXES:
        box_row(box)
    # The Basic total on its own line, then the bonus it has earned (nothing yet: a dash),
    # so a running total is never read as a bonus.
    out.append(f"{'Basic total'[:label]:<{label}}", Style(italic=True))
    for seat in range(seats):
        out.append(f"{view['totals'][seat]['basic']:>{width}}", Style(color="bright_black"))
    out.append("\n")
    out.append(f"{'Bonus (63+)'[:label]:<{label}}", Style(italic=True))
    for seat in range(seats):
        bonus = view["totals"][seat]["bonus"]
        if bonus:
            out.append(f"{'+' + str(bonus):>{width}}", Style(color="bright_green", bold=True))
        else:
            out.append(f"{glyph('–'):>{width}}", Style(color="bright_black"))
    out.append("\n")
    for box in rules.KISMET_BOXES:
        box_row(box)
    out.append(f"{'Total':<{label}}", Style(bold=True))
    for seat in range(seats):
        out.append(
            f"{view['totals'][seat]['total']:>{width}}", Style(bold=True, color=seat_colour(seat))
        )
    return out


def spaced_out(card: Text, height: int) -> Text:
    """The scorecard with a blank line between its rows when `height` has room for that (a
    tall window: the card then fills it, as a paper one does, instead of leaving its lower
    half empty)."""
    rows = card.split("\n")
    if height < 2 * len(rows) - 1:
        return card
    out = Text("\n\n", no_wrap=True, overflow="crop").join(rows)
    out.no_wrap, out.overflow = True, "crop"
    return out


def render_dice(
    view: View,
    held: set[int],
    show_keys: bool,
    hint_hold: set[int] | None = None,
    big: bool = False,
    clicks: bool = False,
) -> Text:
    """The five dice and a label under each: its key, HELD, or what the hint suggests
    ("hold?", "let go?"); a hint never changes what the player holds. `big`: the dice
    drawn larger (BIG_DIE_WIDTH), for a screen with room to spare. `clicks`: a click on a
    die (or its label) holds or releases it."""
    faces = view.get("dice") or []
    gap = 1 if view["seats"] <= 4 else 0
    width = BIG_DIE_WIDTH if big else 7
    blocks = []
    for pos in range(5):
        face = faces[pos] if pos < len(faces) else None
        block = die_lines(face, held=pos in held, big=big)
        blocks.append(linked(block, f"click('hold({pos})')") if clicks else block)
    lines = side_by_side(blocks, gap=gap)
    labels = Text()
    for pos in range(5):
        if pos:
            labels.append(" " * gap)
        start = len(labels)
        hint = Style(color="bright_cyan", bold=True)
        if hint_hold is not None and pos in held and pos not in hint_hold:
            labels.append("let go?".center(width), hint)
        elif pos in held:
            labels.append(
                f"{pos + 1} HELD".center(width), Style(color="black", bgcolor="yellow", bold=True)
            )
        elif hint_hold is not None and pos in hint_hold:
            labels.append(f"{pos + 1} hold?".center(width), hint)
        elif show_keys:
            labels.append(f"{pos + 1}".center(width), Style(color="bright_black"))
        else:
            labels.append(" " * width)
        if clicks:
            labels.stylize(clickable(f"click('hold({pos})')"), start, len(labels))
    lines.append(labels)
    return stack(lines)


class DiceScreen(GameScreen[View, PlayerAction, Note]):
    RULESET = "dice"
    BINDINGS = [
        Binding("r", "roll", "Throw"),
        Binding("1", "hold(0)", "Hold", key_display="1-5"),
        Binding("2", "hold(1)", "Hold", show=False),
        Binding("3", "hold(2)", "Hold", show=False),
        Binding("4", "hold(3)", "Hold", show=False),
        Binding("5", "hold(4)", "Hold", show=False),
        Binding("up,k", "cursor(-1)", "Box", key_display="↑↓"),
        Binding("down,j", "cursor(1)", "Box", show=False),
        Binding("enter", "score", "Score"),
        Binding("h", "hint", "Hint"),
        GameScreen.HAND,
    ] + GameScreen.COMMON_BINDINGS
    TURN_FIELD = "current"
    DEFAULT_CSS = """
    DiceScreen #scorecard { width: auto; height: 100%; padding: 0 1 0 0; }
    DiceScreen #right { width: 1fr; height: 100%; }
    DiceScreen #dice { height: 6; width: 100%; }
    DiceScreen #turn { height: 2; width: 100%; }
    DiceScreen #buttons { height: 1; width: 100%; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.held: set[int] = set()
        self.cursor: str | None = None
        self.cursor_chosen = False  # the player moved the cursor themselves this turn
        self.last_turn_key: tuple[object, object] | None = None
        self.card_width = -1  # the scorecard's drawn width: a layout pass when it changes
        self.drawn: dict[str, Text] = {}  # what each widget shows now
        # The last hint, shown as marks (never applied to the player's own choices).
        self.hint_hold: set[int] | None = None
        self.hint_box: str | None = None
        self.hint_key: tuple[object, object, object] | None = (
            None  # (turn, throws used) the hint was for
        )
        self.hint_logged: tuple[object, str] | None = (
            None  # (hint_key, line) last written to the log
        )

    def on_resize(self) -> None:
        if self.game is not None:
            self.redraw()  # the scorecard uses the room it has

    def on_mount(self) -> None:
        # (GameScreen.on_mount runs too: Textual calls mount handlers up the class tree.)
        if not _ADVISE:
            self.run_worker(self.advisor_loaded, thread=True, group="advisor")

    def advisor_loaded(self) -> None:
        load_advisor()
        self.app.call_from_thread(self.refresh_keys)

    def compose_body(self) -> ComposeResult:
        with Horizontal():
            yield LinkText(id="scorecard")
            with Vertical(id="right"):
                yield Lines(id="dice")
                yield Lines(id="turn")
                yield Lines(id="buttons")
                yield MoveLog(
                    id="movelog", classes="movelog", wrap=True, markup=False, min_width=16
                )

    # ---- drawing -----------------------------------------------------------------------------
    def redraw(self) -> None:
        view = self.view()
        # A new turn (or a new throw by someone else) resets what is held.
        turn_key = (view.get("turn"), view.get("current"))
        if turn_key != self.last_turn_key:
            self.last_turn_key = turn_key
            self.held = set()
            self.cursor = None
            self.cursor_chosen = False
        if not view.get("dice"):
            self.held = set()
        if self.hint_key != (view.get("turn"), view.get("current"), view.get("rolls_used")):
            self.hint_hold, self.hint_box = None, None  # a new throw: the hint is stale
        me = self.seat
        if self.my_turn(view) and view.get("can_score"):
            # Until the player chooses a box, each throw offers the best one again (the box
            # picked for an earlier throw may be worth nothing now: enter would scratch it).
            if self.cursor is None or not self._open(view, self.cursor) or not self.cursor_chosen:
                self.cursor = self._best_box(view)
        elif not self.my_turn(view):
            self.cursor = None
        # A layout pass costs about half of a key press's redraw (it was most of what one ssh
        # player's hold costs the host machine): the dice and the turn line have fixed sizes,
        # and the scorecard's width changes only with the seats, the names or the room.
        # What did not change is not drawn again (a hold redraws the dice alone).
        card = render_scorecard(
            view,
            self.names,
            me,
            self.cursor,
            self.app.size.width,
            self.hint_box,
            clicks=me is not None,
        )
        card = spaced_out(
            card, self.app.size.height - 3
        )  # (the status line, the footer, a chat line)
        if card != self.drawn.get("scorecard"):
            card_width = max((cell_len(line) for line in card.plain.split("\n")), default=0)
            self.query_one("#scorecard", Static).update(card, layout=card_width != self.card_width)
            self.card_width = card_width
        big = big_dice(self.app.size.width, self.app.size.height)
        dice = self.query_one("#dice", Lines)
        if (
            dice.styles.height is None
            or dice.styles.height.value != (BIG_DIE_HEIGHT if big else 5) + 1
        ):
            dice.styles.height = (BIG_DIE_HEIGHT if big else 5) + 1  # (the dice and their labels)
        self._draw(
            "dice",
            render_dice(
                view,
                self.held,
                self.my_turn(view) and view.get("rolls_used", 0) in (1, 2),
                self.hint_hold,
                big,
                clicks=me is not None,
            ),
        )
        self._draw("turn", self._turn_line(view))
        self.draw_buttons()
        self.drawn["scorecard"] = card

    def draw_buttons(self) -> None:
        """Throw, Score and Hint, those offered now (GameScreen.buttons)."""
        if self.game is not None and self.is_mounted:
            self._draw(
                "buttons", self.buttons([("Throw", "roll"), ("Score", "score"), ("Hint", "hint")])
            )

    def _draw(self, widget_id: str, text: Text) -> None:
        """Show `text` in a widget of fixed size (no layout pass), if it changed."""
        if text != self.drawn.get(widget_id):
            self.query_one(f"#{widget_id}", Lines).show(text)
            self.drawn[widget_id] = text

    def _turn_line(self, view: View) -> Text:
        line = Text()
        if view.get("phase") == "over":
            line.append("The game is over.", Style(bold=True))
            return line
        current = view.get("current")
        who = self.names[current] if current is not None else "?"
        if self.my_turn(view):
            line.append("Your turn", Style(bold=True, color="bright_green"))
        else:
            line.append(who, Style(bold=True, color=seat_colour(current)))
            line.append(" is playing")
        left = view.get("rolls_left", 0)
        line.append(f" · throws left: {left}")
        if view.get("joker"):
            line.append(" · JOKER!", Style(bold=True, color="bright_magenta"))
        line.append("\n")
        if self.my_turn(view):
            if view.get("rolls_used", 0) == 0:
                line.append("r: throw the dice", Style(color="bright_black"))
            elif self.cursor:
                entry = (view["preview"] or {}).get(self.cursor)
                points = entry["points"] if entry is not None else 0
                colour = fitting_colour(self.cursor, view.get("dice"), points)
                line.append(
                    f"enter: {points} in {rules.BOX_NAMES[self.cursor]}"
                    + (f" ({colour})" if colour else ""),
                    Style(color="bright_black"),
                )
        return line

    @staticmethod
    def _open(view: View, box: str) -> bool:
        entry = (view["preview"] or {}).get(box)
        return entry is not None and entry["legal"]

    def _open_boxes(self, view: View) -> list[str]:
        return [box for box in rules.BOXES if self._open(view, box)]

    def _best_box(self, view: View) -> str | None:
        boxes = self._open_boxes(view)
        preview = view["preview"]
        if not boxes or preview is None:  # (open boxes come from the preview)
            return None
        return max(boxes, key=lambda box: (preview[box]["points"], -rules.BOXES.index(box)))

    # ---- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if self.game is None:
            return True
        if action not in GAME_ACTIONS[self.RULESET]:
            return super().check_action(action, parameters)
        # Every game key asks the engine's legal_actions (GameScreen.legal_now), nothing else.
        return offered(self.RULESET, action, parameters, self.seen())

    def seen(self) -> Seen:
        """What the keys depend on (screens/offers.py)."""
        return Seen(
            self.seat,
            self.view(),
            self.legal_now(),
            held=frozenset(self.held),
            cursor=self.cursor,
            advisor=_advisor() is not None,
        )

    def answer_not_offered(self, name: str, params: tuple[object, ...]) -> bool:
        # With all five held the footer drops `r` (nothing to throw); a player who presses
        # it (or clicks Throw) anyway hears why rather than nothing.
        if name == "roll" and len(self.held) == 5 and "roll" in self.legal_kinds():
            self.refuse(ALL_HELD)
            return True
        return False

    def engine_action(self, name: str, params: tuple[object, ...]) -> Plain | None:
        if name == "roll":
            return {"type": "roll", "hold": sorted(self.held) if self.view().get("dice") else []}
        if name == "hold":  # (what holding it would mean: a throw that keeps it)
            return {"type": "roll", "hold": [params[0]]}
        if name == "choose":
            return {"type": "score", "box": params[0]}
        if name == "score":
            return {"type": "score", "box": self.cursor or ""}
        if name == "hint":  # (a hint is for a move of ours: if none, the engine says why)
            return {"type": "roll", "hold": []}
        return None

    def why_not(self, name: str, params: tuple[object, ...]) -> str:
        if name == "hint" and self.legal_now():
            return "The hint is not ready yet: try again in a moment."
        return super().why_not(name, params)

    def action_hold(self, pos: int) -> None:
        self.held ^= {pos}
        self.redraw()
        self.refresh_keys()

    async def action_roll(self) -> None:
        view = self.view()
        hold = sorted(self.held) if view.get("dice") else []
        if len(hold) == 5:
            self.refuse(ALL_HELD)
            return
        self.act({"type": "roll", "hold": hold})

    def action_cursor(self, step: int) -> None:
        view = self.view()
        boxes = self._open_boxes(view)
        if not boxes:
            return
        index = boxes.index(self.cursor) if self.cursor in boxes else 0
        self.cursor = boxes[(index + step) % len(boxes)]
        self.cursor_chosen = True
        self.redraw()

    async def action_choose(self, box: str) -> None:
        """A click on a box: the chosen box scores, another becomes the chosen one."""
        if box == self.cursor:
            await self.action_score()
            return
        self.cursor = box
        self.cursor_chosen = True
        self.redraw()

    async def action_score(self) -> None:
        if self.cursor is None:
            self.refuse("Throw the dice first.")
            return
        self.act({"type": "score", "box": self.cursor})

    def action_hint(self) -> None:
        advise = _advisor()
        if advise is None or self.seat is None:
            return
        # The thread gets its own copy: the replica keeps changing on the event loop meanwhile.
        game, seat = copy.deepcopy(self.replica), self.seat
        self.run_worker(
            lambda: self.think(advise, game, seat), thread=True, group="hint", exclusive=True
        )

    def think(self, advise: Advise, game: AnyGame, seat: int) -> None:
        """In a thread: ask the advisor (a few hundred ms), then show the answer."""
        try:
            choices = advise(game, seat)
        except Exception as exc:  # the advisor is a helper: never let it break the game
            self.refuse(f"No hint now ({exc}).")  # (post_message is safe from a thread)
            return
        self.app.call_from_thread(self.show_hint, choices)

    def show_hint(self, choices: list[Hint]) -> None:
        if not choices:
            self.refuse("No hint now.")
            return
        best = choices[0]
        action = best["action"]
        # Mark the hint on the board (dice to hold, or the box), leaving the player's own
        # holds and box choice as they were: the player decides.
        view = self.view()
        self.hint_key = (view.get("turn"), view.get("current"), view.get("rolls_used"))
        self.hint_hold, self.hint_box = None, None
        if action["type"] == "roll" and "hold" in action:
            self.hint_hold = set(action["hold"] or [])
        elif action["type"] == "score":
            self.hint_box = action["box"]
        self.redraw()
        shown = choices[:3]
        lines = [
            f"{c.get('label')}"
            + (
                f" ({glyph('≈')}{c['expected']:.0f})"
                if isinstance(c.get("expected"), (int, float))
                else ""
            )
            for c in shown
        ]
        # Without the optimal table (python -m kismet_tui.solver builds it) the advisor
        # estimates: say so, so nobody takes a guess for the best play.
        estimate = any(c.get("exact") is False for c in shown)
        line = ("Hint (estimate): " if estimate else "Hint: ") + " · ".join(lines)
        if (
            self.hint_key,
            line,
        ) != self.hint_logged:  # h again on the same throw: marked, not logged twice
            self.hint_logged = (self.hint_key, line)
            self.log_line(line, "italic")


_ADVISE: list[Advise] = []  # the advisor's advise(), once loaded


def _advisor() -> Advise | None:
    return _ADVISE[0] if _ADVISE else None


def load_advisor() -> None:
    """Import the advisor (it loads the solver's tables: seconds on a busy machine); run in a
    thread so the screen never waits for it. Without it the hint key stays hidden."""
    if _ADVISE:
        return
    try:
        from ..bots.advisor import advise
    except Exception:
        return
    _ADVISE.append(advise)
