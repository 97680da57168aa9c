"""The one-line status bar on every screen: connection state, who you are, where you are,
and the notices of the moment (a refused move, a lost connection).

Notices are drawn here, on the top line, and nowhere else: a toast in a corner would cover
cards, dice or the hand while they can still be played. A notice stays at least a few
seconds (longer for longer words) and takes the place of "where you are" meanwhile. A
background build of the optimal dice table ends the line ("Preparing the perfect dice bot:
40 %", kismet_tui.solver.background).

Nothing here asks on a timer: the bar watches the app's `connection`, `notice` and
`build_words` (KismetApp) and draws again when one of them changes. In a replay the line
holds its buttons (start, back, pause or play, on, end), those that act now. A game screen sets the
game's clocks (`set_clock`: "Bo's turn: 42 s left", from its one 1 s timer); they follow
the connection (whose address gives way when they would not fit beside it), before the place name (beside a notice's first line), and the line is drawn
again only when its words change. A notice too long for
the line is shown whole on up to NOTICE_LINES lines (the bar grows while it shows, then
gives the rows back), so it is read at once, not in pieces; only a notice longer than that
turns pages (each page ends in "…", the next starts with it), so no word is ever cut off.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.timer import Timer

from ..app_ref import kismet_app
from ..app_state import Notice
from .clicks import ClickText, button, offered
from .glyphs import glyph
from .names import fit

STATE_STYLE = {
    "connected": ("●", "bright_green"),
    "connecting": ("◌", "yellow"),
    "reconnecting": ("◌", "bright_red"),
    "closed": ("×", "bright_red"),
    "replay": ("▶", "bright_cyan"),
    "replay-paused": ("‖", "bright_cyan"),  # the pause sign: a paused replay does not play
}
NOTICE_STYLE = {
    "information": "bold black on bright_cyan",
    "warning": "bold black on bright_yellow",
    "error": "bold bright_white on red",
}


# A replay's buttons on this line (the app's actions: kismet_tui/replay.py), in the order of
# a tape's: to the start, one back, pause or play, one on, to the end.
REPLAY_BUTTONS = [
    ("|<", "app.restart"),
    ("<", "app.step_back(True)"),
    ("<", "app.step_back(False)"),
    ("Pause", "app.play_pause(True)"),
    ("Play", "app.play_pause(False)"),
    (">", "app.step"),
    (">|", "app.to_end"),
]
LOCAL = "this computer"  # the address `kismet` (local play) gives the app
PAGE_SECONDS = 5.0  # how long each page of a notice longer than NOTICE_LINES lines shows
NOTICE_LINES = 3  # the most lines the bar grows to for one notice


def pages(words: str, width: int) -> list[str]:
    """`words` in pieces of at most `width` cells, cut between words: every piece but the
    last ends in "…" and every one but the first starts with it. A single word longer than
    the line is cut (fit), as it would be anyway."""
    dots = glyph("…")
    out: list[str] = []
    line = ""
    for word in words.split():
        lead = f"{dots} " if out else ""
        candidate = f"{line} {word}" if line else lead + word
        if line and cell_len(candidate) + 2 > width:  # (room for " …")
            out.append(f"{line} {dots}")
            line = f"{dots} {word}"
        else:
            line = candidate
    out.append(line)
    return [fit(page, width) for page in out]


def notice_lines(words: str, width: int) -> list[str]:
    """`words` on lines of at most `width` cells, broken between words (pages(), whose
    pieces say "…" where a sentence goes on: on lines one under another they are read as
    one text, so the marks go)."""
    dots = glyph("…")
    lines = pages(words, width)
    if len(lines) <= NOTICE_LINES:
        lines = [line.removeprefix(f"{dots} ").removesuffix(f" {dots}") for line in lines]
    return lines


def connection_words(state: str, address: str, detail: str) -> str:
    """The connection as one short phrase after its mark: "connected to 127.0.0.1:7799",
    "reconnecting…", "on this computer". The client's own sentences ("Connected to ...")
    would repeat the state's word, so they are shown only where they say more: why a
    connection closed, and the replay's progress."""
    local = address == LOCAL
    dots = glyph("…")
    if state == "connected":
        return f"on {LOCAL}" if local else f"connected to {address}" if address else "connected"
    if state == "connecting":
        return (
            f"starting{dots}"
            if local
            else f"connecting to {address}{dots}"
            if address
            else f"connecting{dots}"
        )
    if state == "reconnecting":
        return (
            f"reconnecting to {address}{dots}" if address and not local else f"reconnecting{dots}"
        )
    if state == "closed":
        return detail or "disconnected"
    if state == "replay-paused":
        return f"replay {detail}".strip()
    return f"{state} {detail}".strip()


class StatusBar(ClickText):
    DEFAULT_CSS = """
    StatusBar {
        dock: top;
        height: 1;
        background: $panel;
        color: $text;
    }
    """

    def __init__(self, where: str = "") -> None:
        super().__init__("")
        self.where = where
        self.clock = ""  # the game's clocks in words (kismet_tui/words/clocks.py)
        self.shown = ""
        self.paged: object = None  # the notice whose pages are turning
        self.page = 0
        self.page_room = 76  # the cells the notice's lines were cut to
        self.page_timer: Timer | None = None

    def on_mount(self) -> None:
        app = kismet_app(self)
        for name in ("connection", "notice", "build_words"):
            self.watch(app, name, self.refresh_status, init=False)
        self.refresh_status()

    def on_resize(self) -> None:
        self.shown = ""  # what fits has changed
        self.refresh_status()

    def set_where(self, where: str) -> None:
        self.where = where
        self.refresh_status()

    def set_clock(self, words: str) -> None:
        if words != self.clock:
            self.clock = words
            self.refresh_status()

    def refresh_status(self) -> None:
        app = kismet_app(self)
        state, detail = app.connection.state, app.connection.detail
        mark, colour = STATE_STYLE.get(state, ("?", "white"))
        text = Text(" ", no_wrap=True, overflow="ellipsis")
        text.append(glyph(mark), style=f"bold {colour}")
        width = self.size.width or 80
        notice = app.notice
        room = self.notice_room(notice.words, width) if notice is not None else width - 4
        if notice is not self.paged or (notice is not None and room != self.page_room):
            # A new notice; or the clock grew past the room beside it: cut it again.
            self.turn_pages(notice, room)
        lines = 1
        if notice is not None:
            # The notice takes the line (and more, if it needs them): it is what the player
            # must read now; only the game's clocks stay beside it, at the end of its last
            # line where they fit, else under it (they are urgent too).
            shown = notice_lines(notice.words, self.page_room)
            lines = min(len(shown), NOTICE_LINES)
            first = (self.page * NOTICE_LINES) % len(shown)
            style = NOTICE_STYLE.get(notice.severity, "bold")
            on_show = shown[first : first + NOTICE_LINES]
            for n, line in enumerate(on_show):
                text.append(" " if n == 0 else "\n   ")
                clock = self.clock if n == len(on_show) - 1 and self.clock_fits(line, width) else ""
                pad = 0 if clock and len(on_show) > 1 else self.page_room - 1 - cell_len(line)
                text.append(" " + line + " " * pad, style=style)
                if clock:
                    text.append(f"  {glyph('│')}  ")
                    text.append(clock, style="bold bright_yellow")
            if self.clock and not clock and lines < NOTICE_LINES:
                # No room beside the notice: the clocks take a line of their own under it.
                text.append(f"\n     {glyph('│')}  ")
                text.append(self.clock, style="bold bright_yellow")
                lines += 1
        else:
            self.add_where(text, state, detail, width)
        if self.styles.height is None or self.styles.height.value != lines:
            self.styles.height = lines
        if text.plain != self.shown:  # redraw only on change (a replay's tick sets its progress)
            self.shown = text.plain
            self.update(text)

    def notice_room(self, words: str, width: int) -> int:
        """The cells a notice's lines may take: the line less the game's clocks (and a few
        cells for them to grow) when it fits there on one line; else the whole line, on
        more lines (the clocks then end its last line where they fit, else go under it)."""
        room = width - 4
        beside = room - (cell_len(self.clock) + 7)
        if self.clock and beside >= 24 and len(pages(words, beside)) == 1:
            return beside
        return room

    def clock_fits(self, line: str, width: int) -> bool:
        """Whether the game's clocks fit after this line of the notice (on a notice of one
        line: beside it as cut, padded to its room)."""
        used = self.page_room if self.page_room < width - 4 else cell_len(line) + 1
        return bool(self.clock) and cell_len(self.clock) + 5 <= width - 4 - used

    def turn_pages(self, notice: Notice | None, width: int) -> None:
        """A new notice (or none): from its first page, turning them if it has more."""
        self.paged, self.page, self.page_room = notice, 0, width
        if self.page_timer is not None:
            self.page_timer.stop()
            self.page_timer = None
        if notice is not None and len(notice_lines(notice.words, width)) > NOTICE_LINES:
            self.page_timer = self.set_interval(PAGE_SECONDS, self.next_page)

    def next_page(self) -> None:
        self.page += 1
        self.refresh_status()

    def add_where(self, text: Text, state: str, detail: str, width: int) -> None:
        app = kismet_app(self)
        colour = STATE_STYLE.get(state, ("?", "white"))[1]
        bar = glyph("│")
        words = connection_words(state, app.address, detail)
        if (
            state == "connected"
            and self.clock
            and text.cell_len + 6 + cell_len(words) + cell_len(self.clock) > width
        ):
            # The clocks are urgent ("The host plays for you: press any key to come back.")
            # and the mark still says connected: the address gives way, not their words.
            words = ""
        text.append(" " + words, style=colour)
        if state in ("replay", "replay-paused"):
            self.add_replay_buttons(text)
        if self.clock:  # the game's clocks come before the place: they are what is urgent
            text.append(f"  {bar}  ")
            text.append(self.clock, style="bold bright_yellow")
        # A background build's progress ends the line: in its short words rather than cut
        # the place name; only when even those do not fit does the place name give way.
        build = None
        for kept in (cell_len(self.where), min(cell_len(self.where), 8)):
            build = build or self._build_words(
                app.build_words, width - text.cell_len - (kept + 5 if self.where else 0)
            )
        width -= len(build or "")
        helper = f"  {bar}  ? help"
        room = width - text.cell_len - len("  |  ")
        if self.where and room >= min(cell_len(self.where), 8):
            # Too long for one line (a long name): the help hint goes first (the footer shows
            # "? Help" too), then the name is cut with an ellipsis.
            if cell_len(self.where) + len(helper) > room:
                helper = ""
            text.append(f"  {bar}  ")
            text.append(fit(self.where, room))  # plain: may hold player names
        elif self.where or text.cell_len + len(helper) > width:
            helper = ""  # a long message (why the connection closed) takes the whole line
        text.append(helper, style="dim")
        if build:
            text.append(build, style="bold yellow" if "%" in build else "bright_green")

    def add_replay_buttons(self, text: Text) -> None:
        """A replay's keys as buttons after its progress, those that act now (at the end,
        only going back): the mouse's home, ←, space, → and end (kismet_tui/replay.py)."""
        for label, action in REPLAY_BUTTONS:
            if offered(self, action):
                text.append(" ")
                button(text, label, action, "bold bright_cyan")

    @staticmethod
    def _build_words(build: tuple[str, str] | None, room: int) -> str | None:
        """The background build of the optimal dice table, to end the line with (in short
        words when the long ones do not fit), or None."""
        for words in build or ():
            if len(words) + 5 <= room:
                return f"  {glyph('│')}  " + words
        return None
