"""The chat line: hidden until `t`, sends on enter, hides again on escape; and the owner's `m`.

It sits in the normal flow just above the footer (a second widget docked to the bottom
would lie under the footer, out of sight).

Chat text from other players is shown as plain Text, never as markup. What the player says
goes up as a `ChatInput.Said` message; the app sends it to the host. It holds as much as
the host takes (protocol.limits.MAX_CHAT) and says so when a key or a paste would pass it.

The table's owner mutes the watchers' chat with `m` and lets them talk again with `m`
(`MUTE`: two actions on one key, so the footer names what `m` does now; `mute_offered` says
which is live). The host tells every member in words.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

from protocol import limits
from protocol.host_messages import TableShown

from ..messages import RefusalToShow

MUTE = [
    Binding("m", "mute_watchers", "Mute watchers"),
    Binding("m", "unmute_watchers", "Let watchers talk"),
]


def mute_offered(action: str, table: TableShown | None, me: int | None) -> bool:
    """Whether `action` (one of MUTE's) is a key now: at a table we own, turning the watchers'
    chat the other way from how it is, and muting only while somebody watches."""
    if not table or me is None or table.get("owner") != me or table.get("state") == "closed":
        return False
    muted = bool(table.get("watchers_muted"))
    if action == "mute_watchers":
        return not muted and bool(table.get("spectators"))
    return muted


class ChatInput(Input):
    DEFAULT_CSS = """
    ChatInput {
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
        background: $boost;
    }
    ChatInput.-open { display: block; }
    ChatInput:focus { border: none; }
    """
    BINDINGS = [Binding("escape", "close", "Close chat", show=True)]

    class Said(Message):
        """The player said `words` at the table."""

        def __init__(self, words: str) -> None:
            super().__init__()
            self.words = words

    def __init__(self, id: str | None = "chat") -> None:
        super().__init__(
            placeholder="Say something, enter to send, escape to close",
            id=id,
            max_length=limits.MAX_CHAT,
        )

    # Focusable only while open, so a closed chat line never swallows the game's keys.
    can_focus = False

    # The screens' t opens this line. Its binding is a priority one, run as the app reads
    # the key, not later when the screen does: a fast typist's words right after t are then
    # read with the line already focused, instead of reaching the screen as the game's keys
    # (in the race game a letter grabs a card). While the line is open the binding is off
    # (the screens' check_action asks is_open), so a t in the words is typed, not taken.
    TALK = Binding("t", "talk", "Talk", priority=True)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        self.can_focus = True
        self.add_class("-open")
        # At once, not by focus(), which waits its turn behind the keys already read.
        self.screen.set_focus(self)

    def action_close(self) -> None:
        self.value = ""
        self.remove_class("-open")
        self.can_focus = False
        self.screen.set_focus(None)

    def restricted(self) -> None:
        """A key or a paste that would pass the host's limit is not typed: say so (the
        app shows it on the top line), rather than let the words stop without a word."""
        self.post_message(
            RefusalToShow(
                f"A chat line holds up to {limits.MAX_CHAT} characters: "
                "that would make it longer, so it was not typed."
            )
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        words = event.value.strip()
        self.value = ""
        if words:
            self.post_message(self.Said(words))
        self.action_close()
