"""Drawn text that answers the mouse: a `@click` in its style names the action a click runs.

Textual runs the action a style under the pointer names when it is clicked (its own links),
on the screen that shows it, and draws the thing in its `link-style-hover` colours while the
pointer is over it, where the terminal reports motion. The game screens name one action,
`click`, with the key's action inside, so a click is judged exactly as its key is
(screens/game.py); the end box names its keys' actions directly. Text drawn through a
Static is drawn as a link (underlined, in the link colour) unless it is a `ClickText`.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

# One Style per action, kept: a Style's link id is drawn at random when it is made, and the
# hover highlight follows the id, so a thing drawn again (every hold redraws the dice) must
# keep its id or the highlight would drop under a pointer that has not moved. (A few hundred
# actions at most: the game screens' dice, boxes, cards and buttons.)
_STYLES: dict[str, Style] = {}

BUTTON = Style(reverse=True, bold=True)


def clickable(action: str) -> Style:
    """The style that makes text run the screen's `action` (e.g. "click('hold(0)')") when
    clicked."""
    style = _STYLES.get(action)
    if style is None:
        style = _STYLES[action] = Style(meta={"@click": f"screen.{action}"})
    return style


def linked(lines: list[Text], action: str) -> list[Text]:
    """Copies of a drawing's lines, every cell of them clicking `action` (the drawings are
    shared between calls: widgets/art.py)."""
    style = clickable(action)
    out = []
    for line in lines:
        line = line.copy()
        line.stylize(style)
        out.append(line)
    return out


def button(label: str, action: str) -> Text:
    """A one-line button: its label in reverse, clicking `action`."""
    return Text(f" {label} ", BUTTON + clickable(action))


def button_row(buttons: list[tuple[str, str | None]], gap: int = 2) -> Text:
    """Buttons side by side (label, action), `gap` spaces apart; a button without an action
    is not there, its place left blank."""
    return Text(" " * gap).join(button(label, action) if action is not None else Text(" " * (len(label) + 2))
                                for label, action in buttons)


class ClickText(Static):
    """A Static whose clickable things keep their own look: Textual draws a Static's
    clickable text in its link style (underlined, in one colour: a scorecard's colours
    would go); the pointer over a thing still highlights it."""

    @property
    def link_style(self) -> Style:
        return NO_LINK_STYLE


NO_LINK_STYLE = Style()
