"""The screens around the games by mouse alone (issue 32): the lobby's rows and buttons
against a real host on 127.0.0.1, the new-table form filled and created by clicks, the
records' tabs and pages, a replay stepped by its buttons, the name asked for, the owner's
remove box, and a footer key clicked.

Every click lands where a person would click: on a cell of the screen whose style carries
the action (`click_on`: found by the action, so a button whose wiring is gone fails here),
then the test looks at what the action did. A button is drawn only while its key acts."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from kismet_tui.replay import ReplayApp
from kismet_tui.screens.ask_name import AskNameScreen
from kismet_tui.screens.help import HelpScreen
from kismet_tui.screens.lobby import BUTTONS
from kismet_tui.screens.new_table import NewTableScreen
from kismet_tui.screens.records import RecordsScreen
from kismet_tui.screens.remove import Member, RemoveScreen
from kismet_tui.widgets.chat import ChatInput
from tests.netutil import connected, running_host
from tests.scripted import ScriptedClient
from tests.uiutil import app_for, lobby_client, make_app, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def where_it_acts(app, action: str) -> tuple[int, int] | None:
    """The first cell on screen (x, y) whose click runs `action`, or None."""
    screen = app.screen
    for y in range(app.size.height):
        for x in range(app.size.width):
            if screen.get_style_at(x, y).meta.get("click") == action:
                return x, y
    return None


async def click_on(pilot, action: str) -> None:
    """Click where the screen shows the button (or words) for `action`, once it is drawn: a
    button that the last click swapped (Play for Pause) is drawn a frame later, and a click
    on the old one, on a busy machine, did the old one's action."""
    await wait_for(
        pilot, lambda: where_it_acts(pilot.app, action) is not None, what=f"a button for {action}"
    )
    spot = where_it_acts(pilot.app, action)
    assert spot is not None, f"nothing on the screen does {action}"
    await pilot.click(offset=spot)
    await pilot.pause()


def shown_buttons(app) -> str:
    return str(app.screen.query_one("#lobby-buttons").content)


def buttons_and_footer(app) -> tuple[set[str], set[str]]:
    """The actions of the lobby's buttons drawn now, and of the footer's keys that act now
    (as the footer names them: the table list's enter sits down; quitting has no button)."""
    bar = app.screen.query_one("#lobby-buttons")
    same = {"join(False)": "select_cursor"}
    buttons = {
        same.get(action.split(".", 1)[1], action.split(".", 1)[1])
        for label, action in BUTTONS
        if label in bar.drawn
    }
    footer = {
        binding.action
        for _node, binding, enabled, _tip in app.screen.active_bindings.values()
        if binding.show and enabled
    } - {"quit"}
    return buttons, footer


async def click_row(pilot, row: int) -> None:
    """A click on a row of the lobby's table list (the header is the first line)."""
    await pilot.click("#tables", offset=(4, row + 1))
    await pilot.pause()


@pytest.mark.network
async def test_the_lobby_by_clicks_sits_leaves_and_makes_a_table(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        await bo.create_table("knock", {})
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                pilot,
                lambda: client.state == "connected" and bool(app.screen.tables),
                what="the table list",
            )
            assert "[Sit]" in shown_buttons(app) and "[Leave]" not in shown_buttons(app)
            # The buttons are the footer's keys that act: what is shown acts, what is hidden does not.
            buttons, footer = buttons_and_footer(app)
            assert buttons == footer, (buttons, footer)
            # One click chooses the row, a second on it sits down (as enter does).
            await click_row(pilot, 0)
            assert client.table is None
            await click_row(pilot, 0)
            await wait_for(
                pilot,
                lambda: client.table is not None and len(client.table["seats"]) == 2,
                what="Ana's seat at Bo's table",
            )
            # At a table the lobby's buttons are those of a table: what is shown acts.
            await wait_for(
                pilot, lambda: "[Leave]" in shown_buttons(app), what="the table's buttons"
            )
            assert "[Sit]" not in shown_buttons(app) and "[New table]" not in shown_buttons(app)
            assert where_it_acts(app, "screen.join(False)") is None
            buttons, footer = buttons_and_footer(app)
            assert buttons == footer, (buttons, footer)
            # A click on a row there sits nowhere else, and says why.
            await click_row(pilot, 0)
            await wait_for(
                pilot,
                lambda: any("leave it (l)" in words for words in app.notices_shown),
                what="why a second table is not joined",
            )
            await click_on(pilot, "screen.talk")  # the chat line opens, as with t
            await wait_for(
                pilot, lambda: app.screen.query_one(ChatInput).has_focus, what="the chat line"
            )
            await pilot.press("escape")
            await click_on(pilot, "screen.ready(True)")
            await wait_for(pilot, lambda: client.table["seats"][1].get("ready"), what="Ana ready")
            await click_on(pilot, "screen.leave")
            await wait_for(
                pilot,
                lambda: client.table is None or client.table.get("state") == "closed",
                what="Ana gone from the table",
            )
            # The new-table form, filled by clicks: race, its time to grab, created.
            await wait_for(
                pilot, lambda: "[New table]" in shown_buttons(app), what="the lobby's buttons"
            )
            await click_on(pilot, "screen.new_table")
            await wait_for(pilot, lambda: isinstance(app.screen, NewTableScreen), what="the form")
            form = app.screen
            await click_on(pilot, "screen.change(1)")  # the game line: dice -> race
            assert form.ruleset == "race"
            await click_on(pilot, "screen.go(1)")  # the bots' line: one, and back
            assert form.rows()[form.line][0] == "bots"
            await click_on(pilot, "screen.change(1)")
            assert form.bots == 1
            await click_on(pilot, "screen.change(-1)")  # (this host runs no bots)
            grab_line = [key for key, _ in form.rows()].index("round_limit_ms")
            await click_on(pilot, f"screen.go({grab_line})")  # time to grab: 10 s -> 15 s
            await click_on(pilot, "screen.change(1)")
            assert form.value_of("round_limit_ms") == "15 s"
            await click_on(pilot, "screen.create")
            await wait_for(
                pilot,
                lambda: (
                    client.table is not None
                    and client.table.get("ruleset") == "race"
                    and client.table.get("state") != "closed"
                ),
                what=f"the race table {app.notices_shown}",
            )
            assert client.table["options"]["round_limit_ms"] == 15000
            await wait_for(
                pilot, lambda: not isinstance(app.screen, NewTableScreen), what="the form gone"
            )
            # A key of the footer, clicked: h opens the records.
            records_key = next(key for key in app.screen.query(FooterKey) if key.key == "h")
            await pilot.click(records_key)
            await wait_for(pilot, lambda: isinstance(app.screen, RecordsScreen), what="the records")
            await client.close()


async def test_the_form_goes_back_by_its_button_and_the_solo_form_plays():
    app = app_for(lobby_client())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot,
            lambda: type(app.screen).__name__ == "LobbyScreen" and app.screen.is_mounted,
            what="the lobby",
        )
        app.call_later(app.push_screen, NewTableScreen(quick=True))  # (kismet's solo form)
        await wait_for(pilot, lambda: isinstance(app.screen, NewTableScreen), what="the solo form")
        assert "[Play]" in str(app.screen.query_one("#form").content)
        # The button under the mouse is lit, and only while the mouse is there.
        spot = where_it_acts(app, "screen.create")
        assert spot is not None and not app.screen.get_style_at(*spot).reverse
        await pilot.hover(offset=spot)
        await wait_for(pilot, lambda: app.screen.get_style_at(*spot).reverse, what="the lit button")
        await pilot.hover(offset=(0, 0))
        await wait_for(
            pilot, lambda: not app.screen.get_style_at(*spot).reverse, what="the light gone"
        )
        await click_on(pilot, "screen.cancel")
        await wait_for(
            pilot, lambda: not isinstance(app.screen, NewTableScreen), what="back to the lobby"
        )
        # The lobby's Help button, and the help's footer key that closes it.
        await click_on(pilot, "app.help")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await pilot.click(next(key for key in app.screen.query(FooterKey) if key.key == "escape"))
        await wait_for(
            pilot, lambda: not isinstance(app.screen, HelpScreen), what="the help closed"
        )


async def test_records_tabs_pages_and_back_by_clicks():
    app = app_for(lobby_client())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot,
            lambda: type(app.screen).__name__ == "LobbyScreen" and app.screen.is_mounted,
            what="the lobby",
        )
        await pilot.press("h")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RecordsScreen) and app.screen.answer is not None,
            what="the leaderboard",
        )
        records = app.screen
        assert where_it_acts(app, "screen.page(-1)") is None  # the first page has no page before
        answer = records.answer
        await click_on(pilot, "screen.page(1)")
        await wait_for(pilot, lambda: records.answer is not answer, what="the second page")
        assert records.page == 1 and records.answer["page"] == 1
        await click_on(pilot, "screen.page(-1)")
        await wait_for(
            pilot, lambda: records.page == 0 and records.answer["page"] == 0, what="the first page"
        )
        assert records.ruleset == "race"  # (the game of the table Ana is at)
        await click_on(pilot, "screen.next_ruleset")
        await wait_for(
            pilot,
            lambda: records.ruleset == "knock" and records.answer["ruleset"] == "knock",
            what="knock's leaderboard",
        )
        await click_on(pilot, "screen.view('best')")
        await wait_for(
            pilot,
            lambda: records.view == "best" and records.answer["view"] == "best",
            what="the high scores",
        )
        await click_on(pilot, "screen.view('leaderboard')")
        await wait_for(
            pilot, lambda: records.answer["view"] == "leaderboard", what="the leaderboard again"
        )
        assert records.query_one("#records-table").has_focus  # the buttons took no key from it
        # A row: one click chooses it, a second opens it (a leaderboard row: that player's page).
        await pilot.click("#records-table", offset=(6, 2))
        await pilot.pause()
        assert records.view == "leaderboard"
        await pilot.click("#records-table", offset=(6, 2))
        await wait_for(
            pilot, lambda: records.view == "player" and records.player == "b" * 32, what="Bo's page"
        )
        await click_on(pilot, "screen.close")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "LobbyScreen", what="the lobby")


async def test_a_replay_is_stepped_by_its_buttons():
    source = ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"])
    app = ReplayApp(source.header, source.events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the dice screen"
        )
        assert where_it_acts(app, "app.restart") is None  # at the start: nothing before
        await click_on(pilot, "app.step")
        await click_on(pilot, "app.step")
        assert app.source.index == 2
        await click_on(pilot, "app.step_back(False)")
        assert app.source.index == 1
        await click_on(pilot, "app.play_pause(False)")  # play
        assert not app.paused
        await click_on(pilot, "app.play_pause(True)")  # and pause again
        assert app.paused
        await click_on(pilot, "app.to_end")
        assert app.source.done
        # At the end the end box is up: its footer's "See the board", clicked, closes it, and
        # the replay's buttons are there again, those that act at the end.
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen"
                and any(key.key == "escape" for key in app.screen.query(FooterKey))
            ),
            what="the end box",
        )
        await pilot.click(next(key for key in app.screen.query(FooterKey) if key.key == "escape"))
        await wait_for(
            pilot, lambda: where_it_acts(app, "app.restart") is not None, what="the start button"
        )
        assert where_it_acts(app, "app.step") is None and where_it_acts(app, "app.to_end") is None
        await click_on(pilot, "app.restart")
        assert app.source.index == 0


class AskingApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.answer: str | None = None

    def on_mount(self) -> None:
        self.push_screen(AskNameScreen("", ""), callback=self.got)

    def got(self, name: str | None) -> None:
        self.answer = name


async def test_the_name_is_joined_with_by_a_click():
    app = AskingApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await click_on(pilot, "screen.join")
        assert app.answer is None  # empty: asked again, in words
        assert "Please type a name." in str(app.screen.query_one("#ask-problem").content)
        app.screen.query_one(Input).value = "Webby"
        await click_on(pilot, "screen.join")
        assert app.answer == "Webby"


class RemovingApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.answers: list[int | None] = []

    def on_mount(self) -> None:
        self.ask()

    def ask(self) -> None:
        members = [Member(11, "Bo", 1, False), Member(12, "Cy", 2, True)]
        self.push_screen(RemoveScreen(members), callback=self.answers.append)


async def test_the_player_to_remove_is_picked_by_a_click():
    app = RemovingApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await click_on(pilot, "screen.pick(1)")
        assert app.answers == [12]
        app.call_later(app.ask)
        await pilot.pause()
        await click_on(pilot, "screen.keep")
        assert app.answers == [12, None]


@pytest.mark.network
async def test_invite_by_clicks_says_why_nothing_opens_and_cancels(tmp_path):
    from server.doors.open_up import OpenHost

    async with running_host(tmp_path) as host:
        doors = OpenHost(host, tmp_path, port=0, ssh_port=0, announce=False, bind="127.0.0.1")
        app, client = make_app(host, "Ana")
        app.invitation = doors
        try:
            async with app.run_test(size=(100, 40)) as pilot:
                await wait_for(
                    pilot,
                    lambda: (
                        client.state == "connected"
                        and where_it_acts(app, "screen.open_network") is not None
                    ),
                    what="the Invite button",
                )
                await click_on(pilot, "screen.open_network")
                await wait_for(
                    pilot, lambda: type(app.screen).__name__ == "InviteScreen", what="the question"
                )
                await click_on(pilot, "screen.open")  # nothing chosen: why, in words
                await wait_for(
                    pilot,
                    lambda: (
                        "let nobody in" in str(app.screen.query_one("#invite-problem").render())
                    ),
                    what="the words",
                )
                assert doors.ssh is None and not doors.is_open
                await click_on(pilot, "screen.cancel")
                await wait_for(
                    pilot, lambda: type(app.screen).__name__ == "LobbyScreen", what="the lobby"
                )
                assert not doors.is_open
                await client.close()
        finally:
            await doors.close()
