"""The one-line status bar on every screen: connection state, who you are, where you are,
and the notices of the moment (a refused move, a lost connection).

Notices are drawn here, on the top line, and nowhere else: a toast in a corner would cover
cards, dice or the hand while they can still be played. A notice stays at least a few
seconds (longer for longer words) and takes the place of "where you are" meanwhile. A
background build of the optimal dice table ends the line ("Preparing the perfect dice bot:
40 %", kismet_tui.solver.background).

Nothing here asks on a timer: the bar watches the app's `connection`, `notice` and
`build_words` (KismetApp) and draws again when one of them changes. A notice too long for
the line is shown whole on up to NOTICE_LINES lines (the bar grows while it shows, then
gives the rows back), so it is read at once, not in pieces; only a notice longer than that
turns pages (each page ends in "…", the next starts with it), so no word is ever cut off.
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
    "replay-paused": ("‖", "bright_cyan"),  # the pause sign: a paused replay does not play
}
NOTICE_STYLE = {
    "information": "bold black on bright_cyan",
    "warning": "bold black on bright_yellow",
    "error": "bold bright_white on red",
}


LOCAL = "this computer"  # the address `kismet` (local play) gives the app
PAGE_SECONDS = 5.0  # how long each page of a notice longer than NOTICE_LINES lines shows
NOTICE_LINES = 3    # the most lines the bar grows to for one notice


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
        return f"starting{dots}" if local else f"connecting to {address}{dots}" if address else f"connecting{dots}"
    if state == "reconnecting":
        return f"reconnecting to {address}{dots}" if address and not local else f"reconnecting{dots}"
    if state == "closed":
        return detail or "disconnected"
    if state == "replay-paused":
        return f"replay {detail}".strip()
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
        self.shown = ""
        self.paged: object = None  # the notice whose pages are turning
        self.page = 0
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

    def refresh_status(self) -> None:
        app = kismet_app(self)
        state, detail = app.connection.state, app.connection.detail
        mark, colour = STATE_STYLE.get(state, ("?", "white"))
        text = Text(" ", no_wrap=True, overflow="ellipsis")
        text.append(glyph(mark), style=f"bold {colour}")
        width = self.size.width or 80
        notice = app.notice
        if notice is not self.paged:
            self.turn_pages(notice, width - 4)
        lines = 1
        if notice is not None:
            # The notice takes the line (and more, if it needs them): it is what the player
            # must read now.
            shown = notice_lines(notice.words, width - 4)
            lines = min(len(shown), NOTICE_LINES)
            first = (self.page * NOTICE_LINES) % len(shown)
            style = NOTICE_STYLE.get(notice.severity, "bold")
            for n, line in enumerate(shown[first:first + NOTICE_LINES]):
                text.append(" " if n == 0 else "\n   ")
                text.append(" " + line + " " * (width - 5 - cell_len(line)), style=style)
        else:
            self.add_where(text, state, detail, width)
        if self.styles.height is None or self.styles.height.value != lines:
            self.styles.height = lines
        if text.plain != self.shown:  # redraw only on change (a replay's tick sets its progress)
            self.shown = text.plain
            self.update(text)

    def turn_pages(self, notice: Notice | None, width: int) -> None:
        """A new notice (or none): from its first page, turning them if it has more."""
        self.paged, self.page = notice, 0
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
        text.append(" " + connection_words(state, app.address, detail), style=colour)
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
