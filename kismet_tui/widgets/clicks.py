"""What the mouse clicks outside the games: words that act, and a bar of buttons.

A click runs the same action a key runs, through the same gate: a span of text carries its
action in its style's meta (`acts("screen.page(1)")`), and the widget drawing it (a
`ClickText`) runs it with Textual's `run_action`, which asks the screen's (or app's)
`check_action` first, as a key's binding does. So whatever the key may not do now, the
click may not either; and a button is drawn only while its action is offered (`offered`),
the footer's guarantee for clickable things: what is shown acts, what is hidden does not.

The span under the mouse is lit (where the terminal reports the mouse's motion) in the
style of the `click-text--hover` component (reversed: seen in every terminal, with colour
or without). Not Textual's own `@click` links: those are drawn in the link colour and
underlined, which would turn a form's every line into a link; these keep the look their
screen gives them.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import actions, events
from textual.dom import DOMNode
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static

CLICK = "click"  # the meta key of a span's action


def acts(action: str) -> Style:
    """The style that makes a span run `action` when clicked ("screen.create")."""
    return Style.from_meta({CLICK: action})


def button(text: Text, label: str, action: str, style: Style | str = "bold") -> None:
    """Append `label` to `text` as a button: in brackets (clear in every terminal, colour
    or not, Unicode or ASCII), acting on a click."""
    text.append(
        f"[{label}]", (Style.parse(style) if isinstance(style, str) else style) + acts(action)
    )


def offered(node: Widget, action: str) -> bool:
    """Whether `action` ("screen.join(False)", "app.step") acts now: what its target's
    check_action says, as Textual asks it before a key's action (None: shown but off)."""
    target_name, name, parameters = actions.parse(action)
    target: DOMNode = node.app if target_name == "app" else node.screen
    return bool(target.check_action(name, parameters))


class ClickText(Static):
    """A Static whose spans made with `acts` run their action on a click, the one under the
    mouse lit."""

    COMPONENT_CLASSES = {"click-text--hover"}
    DEFAULT_CSS = """
    ClickText > .click-text--hover { text-style: reverse underline; }
    """

    def __init__(
        self, content: VisualType = "", id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(content, id=id, classes=classes)
        self.words: VisualType = content  # as given, without the hover's light
        self.hovered: str | None = None  # the action of the span under the mouse

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self.words = content
        super().update(self.lit(), layout=layout)

    def lit(self) -> VisualType:
        """The words, the spans of the hovered action in the hover's style."""
        words = self.words
        if self.hovered is None or not isinstance(words, Text):
            return words
        text = words.copy()
        light = self.get_component_rich_style("click-text--hover", partial=True)
        for span in words.spans:
            if isinstance(span.style, Style) and span.style.meta.get(CLICK) == self.hovered:
                text.stylize(light, span.start, span.end)
        return text

    def hover(self, action: str | None) -> None:
        if action != self.hovered:
            self.hovered = action
            super().update(self.lit(), layout=False)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hover(event.style.meta.get(CLICK))

    def on_leave(self, event: events.Leave) -> None:
        self.hover(None)

    async def on_click(self, event: events.Click) -> None:
        action = event.style.meta.get(CLICK)
        if isinstance(action, str):
            event.stop()
            await self.run_action(action)  # (run_action asks check_action, as for a key)


class ActionBar(ClickText):
    """A line of buttons, one per action the screen offers now, drawn again whenever the
    screen's keys change (its `bindings_updated_signal`, as the footer is)."""

    DEFAULT_CSS = """
    ActionBar { height: 1; padding: 0 1; }
    """

    def __init__(self, buttons: list[tuple[str, str]], id: str | None = None) -> None:
        super().__init__("", id=id)
        self.buttons = buttons  # (label, action) in the order shown
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
            return  # (the lobby's keys are refreshed on most messages; most change nothing)
        self.drawn = shown
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, action in self.buttons:
            if label in shown:
                if text:
                    text.append(" ")
                button(text, label, action)
        self.update(text)
