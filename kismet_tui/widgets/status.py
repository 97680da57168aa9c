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

    def set_where(self, where: str) -> None:
        self.where = where
        self.refresh_status()

    def refresh_status(self) -> None:
        app = self.app
        state, detail = app.connection_state() if hasattr(app, "connection_state") else ("", "")
        mark, colour = STATE_STYLE.get(state, ("?", "white"))
        text = Text(" ")
        text.append(mark, style=f"bold {colour}")
        text.append(" " + connection_words(state, str(getattr(app, "address", "") or ""), detail), style=colour)
        if self.where:
            text.append("  │  ")
            text.append(self.where)  # plain: may hold player names
        text.append("  │  ? help", style="dim")
        if text.plain != self.shown:  # redraw only on change: this runs twice a second
            self.shown = text.plain
            self.update(text)
