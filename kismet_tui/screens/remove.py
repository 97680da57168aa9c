"""Whom the owner removes from the table (the lobby's x): the members listed, one key each.

Between games the owner may free any other player's seat (the host tells that player why,
and they may not sit at this table again). The box lists those players, the ones not ready
first since they are the ones a table waits for; a number key (or a click on the line) picks
one, enter the first, escape (or the button) keeps everyone. It is dismissed with the chosen player's client id, not a seat
number: seats move when someone leaves, and the lobby looks the seat up again at the moment
it asks the host.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

from protocol.host_messages import TableShown

from ..widgets.art import seat_colour
from ..widgets.clicks import ClickText, acts, button
from ..widgets.footer import KeyFooter
from ..widgets.glyphs import glyph
from ..widgets.names import fit


@dataclass(frozen=True)
class Member:
    client_id: int
    name: str
    seat: int  # where they sit now, for their colour
    ready: bool


def removable(table: TableShown, me: int | None) -> list[Member]:
    """The players the owner `me` may remove: everyone but the owner and the bots (who stay
    for the table's life), the unready first, each group in seat order."""
    members = [
        Member(client_id, seat["name"] or "?", index, bool(seat.get("ready")))
        for index, seat in enumerate(table.get("seats") or [])
        if (client_id := seat.get("client_id")) is not None
        and client_id != me
        and not seat.get("bot")
    ]
    return sorted(members, key=lambda m: (m.ready, m.seat))


class RemoveScreen(ModalScreen[int | None]):
    DEFAULT_CSS = """
    RemoveScreen { align: center middle; }
    RemoveScreen > Vertical { width: 52; height: auto; border: round $warning; padding: 1 2;
                              background: $surface; }
    """
    BINDINGS = [
        Binding("1", "pick(0)", "Remove", key_display="1-8"),
        *[Binding(str(n), f"pick({n - 1})", "Remove", show=False) for n in range(2, 9)],
        Binding("enter", "pick(0)", "The first"),
        Binding("escape", "keep", "Keep everyone"),
    ]

    def __init__(self, members: list[Member]) -> None:
        super().__init__()
        self.members = members[:8]

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("Remove whom from the table?\n\n", Style(bold=True))
        for number, member in enumerate(self.members, 1):
            pick = acts(f"screen.pick({number - 1})")  # a click on the line: that player
            text.append(f" {number}  ", Style(bold=True) + pick)
            text.append(
                fit(member.name, 24), Style(color=seat_colour(member.seat), bold=True) + pick
            )
            text.append(
                "  ready" if member.ready else "  not ready",
                Style(color="bright_black" if member.ready else "bright_yellow") + pick,
            )
            text.append("\n")
        text.append(
            f"\nThey are told, and cannot sit here again.\n"
            f"A number (or a click) removes that player {glyph('·')} ",
            Style(color="bright_black"),
        )
        button(text, "Keep everyone", "screen.keep")
        with Vertical():
            yield ClickText(text, id="remove-list")
        yield KeyFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick":
            index = parameters[0] if parameters else 0
            return isinstance(index, int) and index < len(self.members)
        return True

    def action_pick(self, index: int) -> None:
        self.dismiss(self.members[index].client_id)

    def action_keep(self) -> None:
        self.dismiss(None)
