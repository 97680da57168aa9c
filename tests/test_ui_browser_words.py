"""In a browser (`kismet-host --web`) the "too small" screen speaks of the browser window,
not a terminal or ctrl+q, and covers the name dialog instead of lying around it; the name
typed in a browser is offered again when it comes back."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.cli import join_by_name
from kismet_tui.net import Client
from kismet_tui.widgets.toosmall import too_small_words
from tests.netutil import running_host
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def test_the_browsers_too_small_words_have_no_terminal_and_no_ctrl_q():
    words = too_small_words(60, 20, web=True).plain
    assert "terminal" not in words.lower() and "ctrl+q" not in words
    assert "browser window larger" in words and "60x20" in words
    assert "ctrl+q quits" in too_small_words(60, 20).plain  # (a terminal's keep them)


def an_app(host, seats, ask_first=True):
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
            "",
            ask=ask_first,
            fresh=False,
            seats=seats,
            refused=[],
        ),
    )
    return app, client


@pytest.mark.network
async def test_the_name_typed_is_offered_again_and_too_small_covers_the_dialog(tmp_path):
    seats = tmp_path / "web-seats" / "abc.json"  # one browser's own file
    async with running_host(tmp_path) as host:
        app, client = an_app(host, seats)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "AskNameScreen", what="the question"
            )
            for key in "Zoe":
                await pilot.press(key)
            await pilot.press("enter")
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await client.close()
        app, client = an_app(host, seats)  # the same browser, back
        async with app.run_test(size=(60, 20)) as pilot:
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "AskNameScreen", what="the question"
            )
            screen = app.screen
            assert screen.query_one("#ask-name").value == "Zoe"
            await wait_for(pilot, lambda: screen.has_class("-too-small"), what="too small")
            box = screen.query_one("Vertical")
            assert box.display is False or box.region.width == 0, (
                "the dialog is covered, not shown around"
            )
            await pilot.resize_terminal(80, 24)
            await wait_for(pilot, lambda: not screen.has_class("-too-small"), what="large enough")
            await pilot.press("enter")  # the name offered, as it is
            await wait_for(
                pilot,
                lambda: client.state == "connected" and client.name == "Zoe",
                what="Zoe again",
            )
            await client.close()
