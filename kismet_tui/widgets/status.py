"""The one-line status bar on every screen: connection state, who you are, where you are,
and the notices of the moment (a refused move, a lost connection).

Notices are drawn here, on the top line, and nowhere else: a toast in a corner would cover
cards, dice or the hand while they can still be played. A notice stays at least a few
seconds (longer for longer words) and takes the place of "where you are" meanwhile. A
background build of the optimal dice table ends the line ("Preparing the perfect dice bot:
40 %", kismet_tui.solver.background).

Nothing here asks on a timer: the bar watches the app's `connection`, `notice` and
`build_words` (KismetApp) and draws again when one of them changes. A game screen sets the
game's clocks (`set_clock`: "Bo's turn: 42 s left", from its one 1 s timer); they follow
the connection, before the place name, and the line is drawn again only when its words
change. The one timer turns the
pages of a notice too long for the line (each page ends in "…", the next starts with it),
so every word of it is read, never cut off.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from ..app_ref import kismet_app
from ..app_state import Notice
from .glyphs import glyph
from .names import fit

STATE_STYLE = {
    "connected": ("●", "bright_green"),
    "connecting": ("◌", "yellow"),
    "reconnecting": ("◌", "bright_red"),
    "closed": ("×", "bright_red"),
    "replay": ("▶", "bright_cyan"),
}
NOTICE_STYLE = {
    "information": "bold black on bright_cyan",
    "warning": "bold black on bright_yellow",
    "error": "bold bright_white on red",
}


LOCAL = "this computer"  # the address `kismet` (local play) gives the app
PAGE_SECONDS = 3.0  # how long each page of a long notice shows


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
        return f"starting{dots}" if local else f"connecting to {address}{dots}" if address else f"connecting{dots}"
    if state == "reconnecting":
        return f"reconnecting to {address}{dots}" if address and not local else f"reconnecting{dots}"
    if state == "closed":
        return detail or "disconnected"
    return f"{state} {detail}".strip()


class StatusBar(Static):
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
        self.page_room = 76  # the cells the notice's pages were cut to
        self.page_timer: Timer | None = None

    def on_mount(self) -> None:
        app = kismet_app(self)
        for name in ("connection", "notice", "build_words"):
            self.watch(app, name, self.refresh_status, init=False)
        self.refresh_status()

    def on_resize(self) -> None:
        self.shown = ""  # what fits has changed
        self.refresh_status()

    def set_clock(self, words: str) -> None:
        if words != self.clock:
            self.clock = words
            self.refresh_status()

    def set_where(self, where: str) -> None:
        self.where = where
        self.refresh_status()

    def refresh_status(self) -> None:
        app = kismet_app(self)
        state, detail = app.connection.state, app.connection.detail
        mark, colour = STATE_STYLE.get(state, ("?", "white"))
        text = Text(" ", no_wrap=True, overflow="ellipsis")
        text.append(glyph(mark), style=f"bold {colour}")
        width = self.size.width or 80
        notice = app.notice
        if notice is not self.paged or (notice is not None and not self.clock_fits(width)
                                        and self.notice_room(width) != self.page_room):
            # A new notice; or the clock grew past the room beside its pages: cut them again.
            self.turn_pages(notice, self.notice_room(width))
        if notice is not None:
            # The notice takes the line: it is what the player must read now; only the
            # game's clocks stay beside it (they are urgent too).
            shown = pages(notice.words, self.page_room)
            text.append(" ")
            text.append(" " + shown[self.page % len(shown)] + " ", style=NOTICE_STYLE.get(notice.severity, "bold"))
            if self.clock and self.clock_fits(width):
                text.append(f"  {glyph('│')}  ")
                text.append(self.clock, style="bold bright_yellow")
        else:
            self.add_where(text, state, detail, width)
        if text.plain != self.shown:  # redraw only on change (a replay's tick sets its progress)
            self.shown = text.plain
            self.update(text)

    def notice_room(self, width: int) -> int:
        """The cells a notice's pages may take: the line less the game's clocks (and a few
        cells for them to grow), unless that leaves too little to read."""
        room = width - 4
        if self.clock and room - (cell_len(self.clock) + 7) >= 24:
            room -= cell_len(self.clock) + 7
        return room

    def clock_fits(self, width: int) -> bool:
        """Whether the game's clocks fit beside the notice's pages as they were cut."""
        return cell_len(self.clock) + 5 <= width - 4 - self.page_room

    def turn_pages(self, notice: Notice | None, width: int) -> None:
        """A new notice (or none): from its first page, turning them if it has more."""
        self.paged, self.page, self.page_room = notice, 0, width
        if self.page_timer is not None:
            self.page_timer.stop()
            self.page_timer = None
        if notice is not None and len(pages(notice.words, width)) > 1:
            self.page_timer = self.set_interval(PAGE_SECONDS, self.next_page)

    def next_page(self) -> None:
        self.page += 1
        self.refresh_status()

    def add_where(self, text: Text, state: str, detail: str, width: int) -> None:
        app = kismet_app(self)
        colour = STATE_STYLE.get(state, ("?", "white"))[1]
        bar = glyph("│")
        text.append(" " + connection_words(state, app.address, detail), style=colour)
        if self.clock:  # the game's clocks come before the place: they are what is urgent
            text.append(f"  {bar}  ")
            text.append(self.clock, style="bold bright_yellow")
        # A background build's progress ends the line: in its short words rather than cut
        # the place name; only when even those do not fit does the place name give way.
        build = None
        for kept in (cell_len(self.where), min(cell_len(self.where), 8)):
            build = build or self._build_words(app.build_words, width - text.cell_len - (kept + 5 if self.where else 0))
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

    @staticmethod
    def _build_words(build: tuple[str, str] | None, room: int) -> str | None:
        """The background build of the optimal dice table, to end the line with (in short
        words when the long ones do not fit), or None."""
        for words in build or ():
            if len(words) + 5 <= room:
                return f"  {glyph('│')}  " + words
        return None
