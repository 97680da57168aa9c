"""The name a player goes by, asked for on screen before joining (`kismet-join --ask-name`:
visitors of `kismet-host --web`, who have no login name the host could use)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from protocol import limits
from protocol.text import clean_name

from ..widgets.clicks import ClickText, button
from ..widgets.toosmall import TooSmall


class AskNameScreen(ModalScreen[str]):
    """Dismissed with a usable name; a name the host would change is asked for again."""

    BINDINGS = [Binding("escape", "keep_default", "Use the name shown", show=False)]
    DEFAULT_CSS = """
    AskNameScreen { align: center middle; }
    AskNameScreen > Vertical { width: 50; height: auto; border: round $accent; padding: 1 2; }
    AskNameScreen #ask-problem { color: $warning; height: auto; }
    """

    def __init__(self, default: str = "", problem: str = "") -> None:
        super().__init__()
        self.default = default
        self.problem = problem  # why the host refused the name asked before, say

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Welcome to Kismet. Your name at the table:")
            yield Input(
                value=self.default,
                placeholder="your name",
                max_length=limits.MAX_NAME,
                id="ask-name",
            )
            yield Static(self.problem, id="ask-problem")
            hint = Text()
            button(hint, "Join", "screen.join")
            hint.append("  enter")
            yield ClickText(hint, classes="hint")
        yield TooSmall()  # (in a small window: the size it needs, not the box over those words)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if len(event.value) >= limits.MAX_NAME:  # the Input stops there: say why
            self.query_one("#ask-problem", Static).update(
                f"A name holds up to {limits.MAX_NAME} characters: the rest is not typed."
            )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_join()

    def action_join(self) -> None:
        """Enter in the name's field, or a click on Join: the name typed, if usable."""
        name = self.query_one(Input).value.strip()
        if not name:
            self.query_one("#ask-problem", Static).update("Please type a name.")
        elif clean_name(name) != name:
            self.query_one("#ask-problem", Static).update("A name cannot hold control characters.")
        else:
            self.dismiss(name)

    def action_keep_default(self) -> None:
        if self.default:
            self.dismiss(self.default)
