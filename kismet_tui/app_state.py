"""What the app holds that its screens and widgets read: the attributes that go down.

`KismetState` is the app's state with nothing of its behaviour: the game's source
(`client`), the reactive attributes the status bar and the screens watch (`connection`,
`notice`, `build_words`, `chat_said`) and the few plain ones they read (`address`,
`chat_lines`, `invitation`, `replay_folder`). kismet_tui/app.py builds `KismetApp` on
it; screens know only this class (through kismet_tui/app_ref.py) and tell the app what
they want with messages (kismet_tui/messages.py), so no screen imports the app and the app
may import every screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import App
from textual.reactive import var

from .invite import Invitation
from .source import GameSource


@dataclass(frozen=True)
class ConnectionStatus:
    """The connection as the status bar shows it: a state word ("connecting", "connected",
    "reconnecting", "closed", "replay") and a sentence (why it closed, a replay's progress)."""

    state: str
    detail: str = ""


@dataclass(frozen=True, eq=False)
class Notice:
    """The words the status bar shows now instead of where you are (a refusal, a lost
    connection); severity is "information", "warning" or "error". Two notices with the same
    words are still two notices (eq=False): the second one shows, and lasts, anew."""

    words: str
    severity: str = "information"
    # The table as it was when the notice was made (KismetApp.table_moment): a notice about
    # a table goes once the table has moved on (somebody readied, a new table, a new game).
    moment: object = None


class KismetState(App[None]):
    """The app's state as its screens read it (the module's docstring says why apart)."""

    connection: var[ConnectionStatus] = var(ConnectionStatus("connecting"), init=False)
    notice: var[Notice | None] = var(None, init=False)
    # The background build in (long, short) words, or None when there is nothing to say.
    build_words: var[tuple[str, str] | None] = var(None, init=False)
    # The newest chat line; set anew for every line, even one that repeats the last.
    chat_said: var[Text | None] = var(None, init=False, always_update=True)

    def __init__(self, client: GameSource, address: str = "") -> None:
        super().__init__()
        self.client = client
        self.address = address
        self.connection = ConnectionStatus("connecting", address)
        self.chat_lines: list[Text] = []  # the last chat lines, for a screen that opens later
        # Chat lines posted to the app and not yet shown, and those not posted because too
        # many were waiting (KismetApp.read_host): a flood never queues up without end.
        self.chat_waiting = 0
        self.chat_skipped = 0
        # Set by `kismet`, whose host is its own: the lobby's Invite (`o`) asks, then lets
        # friends in, and closes again (kismet_tui/invite.py).
        self.invitation: Invitation | None = None
        # Set by `kismet` where it cannot let friends in (Windows): the lobby says these words.
        self.invite_words: str | None = None
        # Where the game logs of this app's own host are (set by `kismet`), so the records
        # screen can replay a game; None for a remote host, whose logs stay there.
        self.replay_folder: Path | None = None
