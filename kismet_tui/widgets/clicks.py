"""What the mouse clicks outside the games: words that act, and a bar of buttons.

A click runs the same action a key runs, through the same gate: a span of text carries
Textual's `@click` meta ("screen.page(1)"), and Textual runs it with `run_action`, which
asks the screen's (or app's) `check_action` first, as a key's binding does. So whatever
the key may not do now, the click may not either; and a button is drawn only while its
action is offered (`offered`), the footer's guarantee for clickable things: what is shown
acts, what is hidden does not. Textual draws a hovered link in its hover colours (where
the terminal reports the mouse's motion), which is how a clickable thing shows it.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import actions
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Static


def on_click(action: str) -> Style:
    """The style that makes a span run `action` when clicked ("screen.create")."""
    return Style.from_meta({"@click": action})


def button(text: Text, label: str, action: str, style: Style | str = "bold") -> None:
    """Append `label` to `text` as a button: in brackets (clear in every terminal, colour
    or not, Unicode or ASCII), acting on a click."""
    text.append(f"[{label}]", Style.parse(style) + on_click(action) if isinstance(style, str)
                else style + on_click(action))


def offered(node: Widget, action: str) -> bool:
    """Whether `action` ("screen.join(False)", "app.step") acts now: what its target's
    check_action says, as Textual asks it before a key's action (None: shown but off)."""
    target_name, name, parameters = actions.parse(action)
    target: DOMNode = node.app if target_name == "app" else node.screen
    return bool(target.check_action(name, parameters))


class ActionBar(Static):
    """A line of buttons, one per action the screen offers now, drawn again whenever the
    screen's keys change (its `bindings_updated_signal`, as the footer is)."""

    DEFAULT_CSS = """
    ActionBar { height: 1; padding: 0 1; }
    """

    def __init__(self, buttons: list[tuple[str, str]], id: str | None = None) -> None:
        super().__init__("", id=id)
        self.buttons = buttons    # (label, action) in the order shown
        self.drawn: tuple[str, ...] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.keys_changed)
        self.draw()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def keys_changed(self, _screen: object) -> None:
        self.draw()

    def shown(self) -> tuple[str, ...]:
        """The labels of the buttons that act now."""
        return tuple(label for label, action in self.buttons if offered(self, action))

    def draw(self) -> None:
        shown = self.shown()
        if shown == self.drawn:
            return   # (the lobby's keys are refreshed on most messages; most change nothing)
        self.drawn = shown
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, action in self.buttons:
            if label in shown:
                if text:
                    text.append(" ")
                button(text, label, action)
        self.update(text)
