"""Invite (the lobby's `o` in `kismet`): asks before anything opens.

The box says what would open, on which addresses and who could come in (the host's own
words: kismet_tui/invite.py `what_opens`), takes friends' public keys pasted one a line
(as in an authorized_keys file), and offers a password for the evening for friends without
a key, and, apart, the game's own port for kismet-join, which asks nothing. ctrl+o opens
as chosen (the box stays, with the host's words, when the choice lets nobody in or cannot
open); escape opens nothing (the box's Open and Cancel buttons are the same, by mouse). It
is dismissed with the lines to share, or None.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Static, TextArea

from ..invite import Invitation, InviteChoice, InviteRefused
from ..widgets.clicks import ClickText, button
from ..widgets.footer import KeyFooter


class InviteScreen(ModalScreen[list[str] | None]):
    DEFAULT_CSS = """
    InviteScreen { align: center middle; }
    InviteScreen > Vertical { width: 84; max-width: 100%; height: auto; max-height: 100%;
                              border: round $accent; padding: 0 1; background: $surface; }
    InviteScreen TextArea { height: 4; }
    InviteScreen Checkbox { border: none; height: 1; padding: 0; }
    InviteScreen #invite-problem { color: $warning; }
    """
    BINDINGS = [
        Binding("ctrl+o", "open", "Open", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, invitation: Invitation) -> None:
        super().__init__()
        self.invitation = invitation
        self.what_opens = invitation.what_opens()

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("Invite friends to this game?\n", Style(bold=True))
        text.append("\n".join(self.what_opens))
        text.append(
            "\nFriends' public keys, one a line (their ~/.ssh/id_ed25519.pub):", Style(bold=True)
        )
        with Vertical():
            yield Static(text, id="invite-words")
            yield TextArea(id="invite-keys", soft_wrap=False, show_line_numbers=False)
            yield Checkbox(
                "A password for tonight, for friends without a key", id="invite-password"
            )
            yield Checkbox(
                "Also the game's own port for kismet-join (anyone on this network)",
                id="invite-join",
            )
            hint = Text()
            button(hint, "Open", "screen.open")
            hint.append(" ctrl+o  ·  ")
            button(hint, "Cancel", "screen.cancel")
            hint.append(" escape opens nothing")
            yield ClickText(hint, id="invite-keys-help")
            yield Static("", id="invite-problem")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#invite-keys", TextArea).focus()

    def choice(self) -> InviteChoice:
        return InviteChoice(
            keys=self.query_one("#invite-keys", TextArea).text,
            password=self.query_one("#invite-password", Checkbox).value,
            join_port=self.query_one("#invite-join", Checkbox).value,
        )

    def show_problem(self, words: str) -> None:
        """The choice cannot open: say why, and keep the box for another try."""
        self.query_one("#invite-problem", Static).update(Text(words))

    async def action_open(self) -> None:
        try:
            lines = await self.invitation.open(self.choice())
        except InviteRefused as exc:
            self.show_problem(exc.words)
            return
        except OSError as exc:
            self.show_problem(f"Could not open this game to the network: {exc.strerror or exc}")
            return
        self.dismiss(lines)

    def action_cancel(self) -> None:
        self.dismiss(None)
