"""A dropped connection shows in the status line, comes back by itself, and the game screen
carries on with the same seat and the same game."""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from tests.netutil import running_host
from tests.uiutil import solo_dice, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def status_line(app) -> str:
    return str(app.screen.query_one("StatusBar").content)


async def test_drop_reconnects_and_rejoins_the_game(tmp_path):
    async with running_host(tmp_path) as host:
        async with solo_dice(host, reconnect=True) as (app, pilot, client):
            await pilot.press("r")
            await wait_for(pilot, lambda: client.game.view(0)["rolls_used"] == 1, what="a throw")
            screen = app.screen
            dice_before = client.game.view(0)["dice"]
            # Cut the connection under the client's feet, as a network would.
            client._writer.transport.abort()
            await wait_for(
                pilot,
                lambda: any("Reconnecting" in n for n in app.notices_shown),
                what="word of the drop",
            )
            await wait_for(
                pilot,
                lambda: "reconnecting" in status_line(app) or client.state == "connected",
                what="the drop in the status line",
            )
            await wait_for(
                pilot,
                lambda: (
                    client.state == "connected"
                    and client.game is not None
                    and not client.game.away[0]
                ),
                10,
                "the rejoin",
            )
            await wait_for(
                pilot,
                lambda: any("back in your seat" in n for n in app.notices_shown),
                what="word of the rejoin",
            )
            assert "back in your seat" in status_line(app)  # the notice, on the status line
            app.notice = None  # ... until its time is up
            # One phrase, the state's word once: not "● connected Connected to ...".
            await wait_for(
                pilot,
                lambda: f"● connected to 127.0.0.1:{host.port}  │" in status_line(app),
                what="the status line to say connected",
            )
            assert "Connected" not in status_line(app) and "Reconnected" not in status_line(app)
            assert app.screen is screen, "the same game screen carries on"
            assert screen.game is client.game and client.seat == 0
            assert client.game.view(0)["dice"] == dice_before
            # And the game goes on from the keyboard.
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: client.game.view(0)["rolls_used"] == 2,
                what="a throw after the rejoin",
            )
            await client.close()


async def test_the_drop_is_announced_even_when_the_status_bar_redraws_first(tmp_path):
    # A status bar redraw that falls between the client noticing the drop and the app reading
    # the client's message must not swallow the notice (seen in CI when the bar polled).
    async with running_host(tmp_path) as host:
        async with solo_dice(host, reconnect=True) as (app, pilot, client):
            bar = app.screen.query_one("StatusBar")
            client.on_state = lambda state, words: bar.refresh_status()  # the worst moment
            client._writer.transport.abort()
            await wait_for(
                pilot,
                lambda: any("Reconnecting" in n for n in app.notices_shown),
                what="word of the drop",
            )
            await wait_for(pilot, lambda: client.state == "connected", 10, "the rejoin")
            await client.close()


async def test_no_host_there_is_said_in_plain_words():
    import socket

    with socket.socket() as probe:  # a port where nobody listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = Client(reconnect=False)
    app = KismetApp(
        client,
        connect=lambda: client.connect("127.0.0.1", port, "Ana"),
        address=f"127.0.0.1:{port}",
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection.state == "closed", what="the failure")
        await wait_for(
            pilot,
            lambda: f"Could not reach a host at 127.0.0.1:{port}" in status_line(app),
            what="the failure in the status line",
        )


def test_the_connection_reads_as_one_phrase():
    from kismet_tui.widgets.status import connection_words

    assert (
        connection_words("connected", "127.0.0.1:7799", "Connected to 127.0.0.1:7799.")
        == "connected to 127.0.0.1:7799"
    )
    assert connection_words("connected", "this computer", "Reconnected.") == "on this computer"
    assert (
        connection_words("reconnecting", "h:1", "Connection lost. Reconnecting...")
        == "reconnecting to h:1…"
    )
    assert (
        connection_words("closed", "h:1", "h:1: the host closed the connection")
        == "h:1: the host closed the connection"
    )
