"""The name asked for on screen (`kismet-join --ask-name`, what a browser visitor sees):
an empty or unusable name is asked again in plain words; a good one is the one joined with."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Input, Static

from kismet_tui.screens.ask_name import AskNameScreen

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


class AskingApp(App):
    def __init__(self, default: str = ""):
        super().__init__()
        self.default = default
        self.answer = None

    def on_mount(self) -> None:
        self.push_screen(AskNameScreen(self.default), callback=self.got)

    def got(self, name: str) -> None:
        self.answer = name


async def test_a_typed_name_is_the_answer_and_an_empty_one_is_asked_again():
    app = AskingApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.answer is None
        assert "Please type a name." in str(app.screen.query_one("#ask-problem", Static).content)
        await pilot.press(*"Webby", "enter")
        await pilot.pause()
        assert app.answer == "Webby"


async def test_escape_keeps_the_name_offered():
    app = AskingApp("Guest")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one(Input).value == "Guest"
        await pilot.press("escape")
        await pilot.pause()
        assert app.answer == "Guest"
