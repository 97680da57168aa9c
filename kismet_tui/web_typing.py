"""The soft keyboard of the browser page (`kismet-host --web`): the app tells the page whether
a text field (a name, a chat line) has the focus, so that a phone brings its keyboard up for
typing and not over the game, where a tap is a click.

It is a meta packet of Textual's web driver, {"type": TYPING_META, "typing": bool}, sent when
it changes; the door (server/doors/web_session.py) hands it to the page. In a terminal (any other
driver) nothing is sent.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ScreenStackError
from textual.widgets import Input, TextArea

from .door_env import TYPING_META


def typing_field_focused(app: App[Any]) -> bool:
    """A field that takes typed text has the focus (a read-only text area does not count)."""
    try:
        focused = app.focused
    except ScreenStackError:  # (no screen yet)
        return False
    if isinstance(focused, TextArea):
        return not focused.read_only
    return isinstance(focused, Input)


class TypingSignal:
    """Tells the page of `app` when typing_field_focused changes (only on the web)."""

    def __init__(self) -> None:
        self.told: bool | None = None

    def update(self, app: App[Any]) -> None:
        # (A blurred app lets go of its focused field and takes it back when focused: the
        # page is not being typed into meanwhile, so that says nothing.)
        if not app.is_web or not app.app_focus:
            return
        typing = typing_field_focused(app)
        if typing == self.told:
            return
        self.told = typing
        # (Textual's WebDriver writes meta packets; its App offers no public door to them)
        write_meta = getattr(app._driver, "write_meta", None)
        if write_meta is not None:
            write_meta({"type": TYPING_META, "typing": typing})
