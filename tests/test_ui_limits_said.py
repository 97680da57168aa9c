"""A name or a chat line cut to its limit is said, never cut without a word."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.cli import join_by_name
from kismet_tui.net import Client
from protocol import limits
from tests.netutil import running_host
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]

LONG = "Bartholomew Fitzgerald-Longname"  # 31 characters


async def test_a_long_name_is_said_cut_and_chat_at_its_limit_is_said(tmp_path):
    assert len(LONG) > limits.MAX_NAME
    async with running_host(tmp_path) as host:
        client = Client(reconnect=False)
        app = KismetApp(
            client,
            address=f"127.0.0.1:{host.port}",
            on_quit=client.close,
            connect=lambda: join_by_name(
                app,
                client,
                "127.0.0.1",
                host.port,
                LONG,
                ask=False,
                fresh=True,
                seats=tmp_path / "seats.json",
                refused=[],
            ),
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await wait_for(
                pilot,
                lambda: any("up to 24 characters" in n for n in app.notices_shown),
                what="the name's cut said",
            )
            said = next(n for n in app.notices_shown if "up to 24 characters" in n)
            assert f"“{LONG[:24].strip()}”" in said, said
            await client.create_table("dice", {})
            await wait_for(
                pilot,
                lambda: client.table is not None and app.screen.check_action("talk", ()),
                what="a table, t to talk",
            )
            await pilot.press("t")
            chat = app.screen.query_one("ChatInput")
            assert chat.max_length == limits.MAX_CHAT  # as much as the host takes
            chat.value = "a" * limits.MAX_CHAT
            chat.cursor_position = limits.MAX_CHAT
            await pilot.press("b")  # one more: not typed, and said
            await wait_for(
                pilot,
                lambda: any(f"up to {limits.MAX_CHAT} characters" in n for n in app.notices_shown),
                what="the chat limit said",
            )
            assert chat.value == "a" * limits.MAX_CHAT
            await client.close()


async def test_the_name_asked_on_screen_says_where_it_stops():
    from textual.app import App

    from kismet_tui.screens.ask_name import AskNameScreen

    class Asking(App):
        def on_mount(self) -> None:
            self.push_screen(AskNameScreen())

    app = Asking()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "AskNameScreen", what="the question"
        )
        field = app.screen.query_one("#ask-name")
        field.value = "x" * (limits.MAX_NAME - 1)
        field.cursor_position = len(field.value)
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: "up to 24 characters" in str(app.screen.query_one("#ask-problem").content),
            what="the limit said",
        )
