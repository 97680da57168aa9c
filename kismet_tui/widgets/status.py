"""The one-line status bar on every screen: connection state, who you are, where you are.

It reads the client's state twice a second, so a dropped connection shows within half a
second even when no message arrives, and so does a background build of the optimal dice
table ("Preparing the perfect dice bot: 40 %", kismet_tui.solver.background).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from kismet_tui.solver import background

from .names import fit

STATE_STYLE = {
    "connected": ("●", "bright_green"),
    "connecting": ("◌", "yellow"),
    "reconnecting": ("◌", "bright_red"),
    "closed": ("×", "bright_red"),
    "replay": ("▶", "bright_cyan"),
}


LOCAL = "this computer"  # the address `kismet` (local play) gives the app


def connection_words(state: str, address: str, detail: str) -> str:
    """The connection as one short phrase after its mark: "connected to 127.0.0.1:7799",
    "reconnecting…", "on this computer". The client's own sentences ("Connected to ...")
    would repeat the state's word, so they are shown only where they say more: why a
    connection closed, and the replay's progress."""
    local = address == LOCAL
    if state == "connected":
        return f"on {LOCAL}" if local else f"connected to {address}" if address else "connected"
    if state == "connecting":
        return "starting…" if local else f"connecting to {address}…" if address else "connecting…"
    if state == "reconnecting":
        return f"reconnecting to {address}…" if address and not local else "reconnecting…"
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
        self.shown = ""

    def on_mount(self) -> None:
        self.refresh_status()
        self.set_interval(0.5, self.refresh_status)

    def on_resize(self) -> None:
        self.shown = ""  # what fits has changed
        self.refresh_status()

    def set_where(self, where: str) -> None:
        self.where = where
        self.refresh_status()

    def refresh_status(self) -> None:
        app = self.app
        state, detail = app.connection_state() if hasattr(app, "connection_state") else ("", "")
        mark, colour = STATE_STYLE.get(state, ("?", "white"))
        text = Text(" ", no_wrap=True, overflow="ellipsis")
        text.append(mark, style=f"bold {colour}")
        text.append(" " + connection_words(state, str(getattr(app, "address", "") or ""), detail), style=colour)
        width = self.size.width or 80
        # A background build's progress ends the line; the place name gives way to it.
        build = self._build_words(width - text.cell_len - (min(cell_len(self.where), 8) + 5 if self.where else 0))
        width -= len(build or "")
        helper = "  │  ? help"
        room = width - text.cell_len - len("  │  ")
        if self.where and room >= min(cell_len(self.where), 8):
            # Too long for one line (a long name): the help hint goes first (the footer shows
            # "? Help" too), then the name is cut with an ellipsis.
            if cell_len(self.where) + len(helper) > room:
                helper = ""
            text.append("  │  ")
            text.append(fit(self.where, room))  # plain: may hold player names
        elif self.where or text.cell_len + len(helper) > width:
            helper = ""  # a long message (why the connection closed) takes the whole line
        text.append(helper, style="dim")
        if build:
            text.append(build, style="bold yellow" if "%" in build else "bright_green")
        if text.plain != self.shown:  # redraw only on change: this runs twice a second
            self.shown = text.plain
            self.update(text)

    @staticmethod
    def _build_words(room: int) -> str | None:
        """The background build of the optimal dice table, to end the line with (in short
        words when the long ones do not fit), or None."""
        for short in (False, True):
            words = background.status_words(short=short)
            if words is None:
                return None
            if len(words) + 5 <= room:
                return "  │  " + words
        return None
