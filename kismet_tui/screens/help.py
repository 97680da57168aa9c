"""The rules of the game being played, on `?` or F1 (texts in kismet_tui/help/)."""

from __future__ import annotations

from importlib import resources

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..door_env import rejoin_code
from ..rules import GAMES
from ..widgets.footer import KeyFooter
from ..widgets.toosmall import TooSmall

LOBBY_HELP = """# Kismet

Three games to play together: **dice** (Kismet 1964, five coloured dice and a scorecard),
**race** (Kismet 1997, grab the card the dice point at before the others do) and **knock**
(lay your own cards and knock when somebody misses a match).

## In the lobby

| key | does |
|---|---|
| `n` | make a new table (choose the game, bots and options) |
| `enter` | sit down at the chosen table |
| `s` | watch the chosen table |
| `y` | say you are ready (again: not ready) |
| `g` | start the game (the table's owner, once everyone is ready) |
| `x` | remove a player from your table (the table's owner, between games) |
| `l` | leave the table |
| `r` | refresh the list of tables |
| `t` | talk; `escape` leaves the chat line |
| `m` | the table's owner, while somebody watches: mute the watchers' chat (again: let them talk) |
| `h` | the records: leaderboards, recent games, your own, high scores; `enter` replays a game, `v` reviews a game |
| `o` | invite friends: open this computer's game to them (`kismet` alone) |
| `?` | this help |
| `ctrl+q` | quit |

By mouse: a click on a table chooses it, a second sits down; the buttons over the chat do
what their keys do, and so does a click on a key in the bottom line.

Inside a game, `?` shows that game's rules and keys.
"""


RATING_HELP = """## Your rating

The end box shows your rating in this game and how the game moved it: "1046 (+23)". The
host rates every player it can recognise (by their key, never by name), bots too, one
rating per game (dice, race, knock). Each game is judged by its places: beating someone
moves you up and being beaten moves you down, more so against stronger players.

The number is what the host is sure you are at least (openskill's skill less three times
its doubt, scaled so a newcomer shows 1000). Each game makes the host surer of you, which
raises the number by itself: so in your first games even a third place of four can gain a
little ("+17"), and later the places alone move it. A solo game moves no rating; a player
who left the game for good ranks last. The leaderboard (`h` in the lobby) lists a player
after 3 rated games.
"""


def rules_text(ruleset: str | None, rating_first: bool = False) -> str:
    """The help page for a game, or the lobby's page when no game is chosen. Every game's
    page ends with what the end box's rating means; over the end box (`rating_first`) it
    comes first, since that is what is in front of the player."""
    if ruleset not in GAMES:
        return LOBBY_HELP
    rules = resources.files("kismet_tui.help").joinpath(f"{ruleset}.md").read_text(encoding="utf-8")
    return f"{RATING_HELP}\n{rules}" if rating_first else f"{rules}\n{RATING_HELP}"


class HelpScreen(ModalScreen):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 100%;
        max-width: 96;
        height: 100%;
        background: $surface;
        border: round $accent;
        padding: 0 1;
    }
    HelpScreen #help-text { width: 100%; height: auto; }
    """
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close help"),
        Binding("up,k", "scroll(-1)", "Up", show=False),
        Binding("down,j", "scroll(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown,space", "page(1)", "Page down"),
    ]

    def __init__(self, ruleset: str | None, rating_first: bool = False) -> None:
        super().__init__()
        self.ruleset = ruleset
        self.source = rules_text(ruleset, rating_first)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll", can_focus=True):
            code = rejoin_code()
            if code is not None:  # a keyless ssh player: where their code stays readable
                yield Static(
                    f"Your rejoin code: {code}. Logging in again with this name, "
                    f"type it to take your seat back.",
                    id="rejoin-code",
                    markup=False,
                )
            # Rich's Markdown drawn in one Static: it opens at once, where Textual's Markdown
            # widget (a widget per block) takes over a second for these pages.
            yield Static(Markdown(self.source), id="help-text")
        yield TooSmall()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_scroll(self, lines: int) -> None:
        scroll = self.query_one("#help-scroll", VerticalScroll)
        scroll.scroll_to(y=scroll.scroll_y + lines, animate=False)

    def action_page(self, pages: int) -> None:
        """A page is what the window shows, less one line kept in view to read on from."""
        scroll = self.query_one("#help-scroll", VerticalScroll)
        self.action_scroll(pages * max(1, scroll.scrollable_content_region.height - 1))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
