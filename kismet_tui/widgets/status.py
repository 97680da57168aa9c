"""The one-line status bar on every screen: connection state, who you are, where you are.

It reads the client's state twice a second, so a dropped connection shows within half a
second even when no message arrives.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

STATE_STYLE = {
    "connected": ("●", "bright_green"),
    "connecting": ("◌", "yellow"),
    "reconnecting": ("◌", "bright_red"),
    "closed": ("×", "bright_red"),
    "replay": ("▶", "bright_cyan"),
}


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

    def set_where(self, where: str) -> None:
        self.where = where
        self.refresh_status()

    def refresh_status(self) -> None:
        app = self.app
        state, detail = app.connection_state() if hasattr(app, "connection_state") else ("", "")
        mark, colour = STATE_STYLE.get(state, ("?", "white"))
        text = Text(" ")
        text.append(f"{mark} {state}", style=f"bold {colour}")
        if detail:
            text.append(f" {detail}")
        if self.where:
            text.append("  │  ")
            text.append(self.where)  # plain: may hold player names
        text.append("  │  ? help", style="dim")
        if text.plain != self.shown:  # redraw only on change: this runs twice a second
            self.shown = text.plain
            self.update(text)
