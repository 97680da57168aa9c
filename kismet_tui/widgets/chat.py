"""The chat line: hidden until `t`, sends on enter, hides again on escape.

Chat text from other players is shown as plain Text, never as markup.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class ChatInput(Input):
    DEFAULT_CSS = """
    ChatInput {
        dock: bottom;
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
        background: $boost;
    }
    ChatInput.-open { display: block; }
    ChatInput:focus { border: none; }
    """
    BINDINGS = [Binding("escape", "close", "Back to the game", show=True)]

    def __init__(self, id: str | None = "chat") -> None:
        super().__init__(placeholder="Say something, enter to send, escape to close", id=id,
                         max_length=200)

    def open(self) -> None:
        self.add_class("-open")
        self.focus()

    def action_close(self) -> None:
        self.value = ""
        self.remove_class("-open")
        self.screen.set_focus(None)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.strip()
        self.value = ""
        if words:
            await self.app.send_chat(words)
        self.action_close()
