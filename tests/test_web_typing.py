"""The app tells the browser page when a text field has the focus (kismet_tui/web_typing.py):
once per change, only on the web, and not while the page itself is blurred."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Button, Input, TextArea

from kismet_tui.door_env import TYPING_META
from kismet_tui.web_typing import TypingSignal


class Form(App[None]):
    def __init__(self, web: bool) -> None:
        super().__init__()
        self.web = web
        self.signal = TypingSignal()
        self.told: list[dict[str, Any]] = []

    @property
    def is_web(self) -> bool:
        return self.web

    def compose(self) -> ComposeResult:
        yield Button("Go", id="go")
        yield Input(id="name")
        yield TextArea("read me", read_only=True, id="words")

    def on_mount(self) -> None:
        self._driver.write_meta = self.told.append  # type: ignore[union-attr]

    def on_descendant_focus(self) -> None:
        self.signal.update(self)

    def on_descendant_blur(self) -> None:
        self.signal.update(self)


async def test_a_text_field_focused_and_left_is_told_once_each():
    app = Form(web=True)
    async with app.run_test() as pilot:
        app.query_one("#go").focus()
        await pilot.pause()
        app.query_one("#name").focus()
        await pilot.pause()
        app.query_one("#name").focus()  # (again: nothing new to tell)
        await pilot.pause()
        app.query_one("#words").focus()  # read-only: nothing to type into
        await pilot.pause()
        app.app_focus = False  # the page blurred: the app lets go of its field
        app.query_one("#name").focus()
        await pilot.pause()
    typing = [meta["typing"] for meta in app.told if meta["type"] == TYPING_META]
    assert typing == [False, True, False]


async def test_nothing_is_told_outside_the_web():
    app = Form(web=False)
    async with app.run_test() as pilot:
        app.query_one("#name").focus()
        await pilot.pause()
    assert app.told == []
