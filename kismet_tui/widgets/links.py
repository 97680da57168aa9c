"""The game screens' clickable things: a `@click` in a drawing's style names the action a
click runs (the menus' words and buttons are widgets/clicks.py's).

Textual runs the action a style under the pointer names when it is clicked (its own links),
on the screen that shows it, and draws the thing in its `link-style-hover` colours while the
pointer is over it, where the terminal reports motion. The game screens name one action,
`click`, with the key's action inside, so a click is judged exactly as its key is
(screens/game.py); the end box names its keys' actions directly. Text drawn through a
Static is drawn as a link (underlined, in the link colour) unless it is a `LinkText`.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.visual import VisualType
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
    return Text(" " * gap).join(
        button(label, action) if action is not None else Text(" " * (len(label) + 2))
        for label, action in buttons
    )


class LinkText(Static):
    """A Static whose clickable things keep their own look: Textual draws a Static's
    clickable text in its link style (underlined, in one colour: a scorecard's colours
    would go). The thing under the pointer is lit here, whole: Textual's own light follows a
    link id that a Static's text gets anew for each style it is drawn in, so it would light
    a box's name and not its points."""

    def __init__(self, content: VisualType = "", *, id: str | None = None) -> None:
        super().__init__(content, id=id)
        self.words: VisualType = content  # as given, without the light
        self.hovered: str | None = None  # the action of the thing under the pointer

    @property
    def link_style(self) -> Style:
        return NO_LINK_STYLE

    @property
    def link_style_hover(self) -> Style:
        return NO_LINK_STYLE

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self.words = content
        super().update(self.lit(), layout=layout)

    def lit(self) -> VisualType:
        """The words, every span of the hovered action lit."""
        words = self.words
        if self.hovered is None or not isinstance(words, Text):
            return words
        text = words.copy()
        for span in words.spans:
            if isinstance(span.style, Style) and span.style.meta.get("@click") == self.hovered:
                text.stylize(LIT, span.start, span.end)
        return text

    def hover(self, action: str | None) -> None:
        if action != self.hovered:
            self.hovered = action
            super().update(self.lit(), layout=False)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        action = event.style.meta.get("@click")
        self.hover(action if isinstance(action, str) else None)

    def on_leave(self, event: events.Leave) -> None:
        self.hover(None)


NO_LINK_STYLE = Style()
# The light on the thing under the pointer: Textual's link-hover colours, underlined too so
# that it shows without colour (NO_COLOR).
LIT = Style(color="bright_white", bgcolor="bright_blue", underline=True)
