"""The app's shared state (the connection, the notice of the moment, chat) is reactive: the
status bar and the screens draw again when it changes, with nothing asking on a timer.

These drive the real app over a scripted game (tests/scripted.py), so no network is needed:
what is checked is that a change shows after the app handled its messages once, that a
notice goes by itself and only when its own time is up, and that chat reaches every screen
on the stack, a line said twice included."""

from __future__ import annotations

import pytest
from rich.text import Text

from kismet_tui.app import ConnectionStatus, KismetApp
from kismet_tui.messages import host_message
from kismet_tui.screens.game import GameScreen
from kismet_tui.screens.lobby import LobbyScreen
from kismet_tui.widgets.status import StatusBar
from tests.uiutil import dice_mid_game, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(60)]


def bar_text(app: KismetApp) -> str:
    return app.screen.query_one(StatusBar).shown


async def on_the_dice_screen(pilot, app: KismetApp, client) -> GameScreen:
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, GameScreen) and app.screen.game is client.game,
        what="the dice screen",
    )
    return app.screen


async def test_the_status_bar_follows_the_connection_at_once():
    client = dice_mid_game()
    app = KismetApp(client, address="127.0.0.1:7799")
    async with app.run_test(size=(80, 24)) as pilot:
        await on_the_dice_screen(pilot, app, client)
        await wait_for(
            pilot, lambda: "connected to 127.0.0.1:7799" in bar_text(app), what="connected"
        )
        app.notice = None  # (no notice over the line)
        app.connection = ConnectionStatus("reconnecting", "Connection lost. Reconnecting...")
        app.notice = None
        await pilot.pause()  # one turn of the app's messages, no timer
        assert "reconnecting to 127.0.0.1:7799" in bar_text(app)
        app.connection = ConnectionStatus(
            "closed", "127.0.0.1:7799: the host closed the connection"
        )
        app.notice = None
        await pilot.pause()
        assert "the host closed the connection" in bar_text(app)
        # Both changes were news the player must hear: each made a notice.
        assert any("Reconnecting" in words for words in app.notices_shown)
        assert any("closed the connection" in words for words in app.notices_shown)


async def test_a_notice_goes_by_itself_and_not_before_its_time():
    client = dice_mid_game()
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await on_the_dice_screen(pilot, app, client)
        app.notify("First words", timeout=1)
        first = app.notice
        app.notify("Second words", timeout=60)
        second = app.notice
        await pilot.pause()
        assert "Second words" in bar_text(app)
        app.clear_notice(first)  # the first one's time is up: it must not take the second along
        assert app.notice is second
        app.notify("Short words", timeout=0)
        await pilot.pause()
        assert "Short words" in bar_text(app)
        await wait_for(pilot, lambda: app.notice is None, what="the notice to go by itself")
        await pilot.pause()
        assert "Short words" not in bar_text(app) and "this computer" in bar_text(app)


async def test_chat_reaches_every_screen_even_a_line_said_twice():
    client = dice_mid_game()
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await on_the_dice_screen(pilot, app, client)
        lobby = next(s for s in app.screen_stack if isinstance(s, LobbyScreen))
        for _ in range(2):
            app.post_message(host_message({"type": "chat", "name": "Bo", "text": "good luck"}))

        def said(log) -> int:
            return sum("Bo: good luck" in line.text for line in log.lines)

        await wait_for(
            pilot, lambda: said(screen.query_one("#movelog")) == 2, what="both lines on the board"
        )
        assert said(lobby.query_one("#lobbylog")) == 2, "the lobby under the game heard them too"
        assert [line.plain for line in app.chat_lines] == ["Bo: good luck"] * 2
        assert isinstance(app.chat_said, Text)


async def test_keys_typed_right_after_t_go_to_the_chat_line_not_the_game():
    """A fast typist's t and words reach the app in one burst: every key after t belongs to
    the chat line (in the race game a letter would grab a card otherwise)."""
    from textual import events

    from kismet_tui.widgets.chat import ChatInput

    client = dice_mid_game()
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await on_the_dice_screen(pilot, app, client)
        sent: list[dict] = []
        client.act_nowait = sent.append  # r would throw the dice
        for char in "trolled it":  # all queued before the app handles the first
            app.post_message(events.Key("space" if char == " " else char, char))
        chat = screen.query_one(ChatInput)
        done = []
        app.call_later(done.append, True)  # queued after the keys: runs once they were handled
        await wait_for(pilot, lambda: bool(done), what="the keys to be handled")
        await pilot.pause()
        assert chat.has_focus and chat.value == "rolled it", "every key after t, a t among them"
        assert sent == [], "no key went to the game"


async def test_the_lobby_asks_once_and_then_takes_the_hosts_pushes():
    """The table list is asked for once, when the connection comes up; after that the host
    pushes it when it changes (a `tables` message without `re`), so nothing polls. Under a
    game a push is kept, not drawn (each redraw was for nothing there), and the lobby shows
    it when it is back, without asking again."""
    client = dice_mid_game()
    asked: list[int] = []

    async def list_tables():
        asked.append(1)
        return []

    client.list_tables = list_tables
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await on_the_dice_screen(pilot, app, client)
        lobby = next(s for s in app.screen_stack if isinstance(s, LobbyScreen))
        await wait_for(
            pilot,
            lambda: not any(w.is_running for w in app.workers if w.group == "lobby"),
            what="the lobby's first ask",
        )
        assert len(asked) == 1, "asked once, when the connection came up"
        pushed = [
            {
                "id": 7,
                "ruleset": "knock",
                "state": "lobby",
                "seats": ["Bo"],
                "max_seats": 8,
                "spectators": 0,
                "owner": "Bo",
            }
        ]
        app.post_message(host_message({"type": "tables", "tables": pushed}))
        app.post_message(
            host_message({"type": "table", "table": client.table})
        )  # a change at the table
        await wait_for(pilot, lambda: lobby.tables == pushed, what="the pushed list, kept")
        grid = lobby.query_one("#tables")
        assert grid.row_count == 0, "not drawn under the game"
        app.pop_screen()  # back in the lobby: the push shows, nothing asked
        await wait_for(
            pilot,
            lambda: grid.row_count == 1 and "knock" in str(grid.get_row_at(0)),
            what="the pushed table in the lobby",
        )
        await pilot.pause()
        assert len(asked) == 1, "no ask: the host's pushes keep the list"


async def test_answers_that_change_nothing_redraw_nothing():
    """The client pings the host every 10 s; each pong (and each plain "ok") reached every
    screen as news and redrew the board, the largest share of an idle player's CPU once the
    lobby stopped polling under the game. A table message still reaches the screen."""
    client = dice_mid_game()
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await on_the_dice_screen(pilot, app, client)
        await pilot.pause()
        seen = screen.version
        for quiet in ({"type": "pong", "now": 5, "re": 3}, {"type": "ok", "re": 4}):
            message = host_message(quiet)
            if message is not None:  # (none is made: a quiet answer is news to nobody)
                app.post_message(message)
        app.post_message(host_message({"type": "table", "table": client.table}))
        await wait_for(pilot, lambda: screen.version > seen, what="the table message")
        await pilot.pause()
        assert screen.version == seen + 1, "only the table message was news to the screen"
