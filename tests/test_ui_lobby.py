"""The lobby through a real host: create by keys, ready marks, a refusal in words, chat as
plain text, start; and the help screen, for the lobby and for the game being played."""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from kismet_tui.screens.help import HelpScreen
from kismet_tui.widgets.chat import ChatInput
from tests.netutil import connected, running_host
from tests.uiutil import make_app, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def notifications(app) -> list[str]:
    return list(app.notices_shown)


async def ana_makes_a_race_table_bo_joins(pilot, client, bo) -> None:
    """Ana (the app) opens a race table by keys, no bots; Bo sits down, not ready."""
    await wait_for(pilot, lambda: client.state == "connected", what="connection")
    await pilot.press("n", "right", "enter")
    await wait_for(pilot, lambda: client.table is not None, what="the table")
    assert client.table["ruleset"] == "race"
    await bo.join_table(client.table["id"])
    await wait_for(pilot, lambda: len(client.table["seats"]) == 2, what="Bo's seat")


async def test_lobby_create_ready_refusal_chat_start(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await ana_makes_a_race_table_bo_joins(pilot, client, bo)
            # Starting before Bo is ready is refused, in words, and nothing starts.
            await pilot.press("g")
            await wait_for(
                pilot, lambda: any("ready" in n for n in notifications(app)), what="the refusal"
            )
            assert client.game is None
            await bo.ready()
            await wait_for(
                pilot,
                lambda: "✓ Bo" in str(app.screen.query_one("#mytable").content),
                what="Bo ready in the seats panel",
            )
            assert "Ana" in str(app.screen.query_one("#mytable").content)
            # Chat: markup in a message is never interpreted; it arrives as plain text.
            stream = bo.messages()
            await pilot.press("t")
            await wait_for(
                pilot, lambda: app.screen.query_one(ChatInput).has_focus, what="the chat line"
            )
            # The chat line is on screen, above the footer, not hidden under it.
            chat_line = app.screen.query_one(ChatInput).region
            footer = app.screen.query_one(Footer).region
            assert chat_line.height == 1 and chat_line.bottom <= footer.y
            for ch in "hi [b]x":
                await pilot.press(ch if ch != " " else "space")
            await pilot.press("enter")
            chat = None
            while chat is None:
                msg = await stream.__anext__()
                if msg.get("type") == "chat":
                    chat = msg
            assert chat["name"] == "Ana" and chat["text"].startswith("hi ")
            await wait_for(
                pilot,
                lambda: any(
                    "Ana: hi" in line.text for line in app.screen.query_one("#lobbylog").lines
                ),
                what="the chat line in the lobby log",
            )
            lobby_log = "\n".join(line.text for line in app.screen.query_one("#lobbylog").lines)
            assert "Ana: hi [b]x" in lobby_log  # as typed, shown as plain text
            await pilot.press("g")
            await wait_for(
                pilot,
                lambda: getattr(app.screen, "RULESET", None) == "race",
                what="the race screen",
            )
            assert client.game is not None and client.game.seats == 2
            await client.close()


async def test_help_opens_for_the_lobby_and_for_the_game(tmp_path):
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
            assert "In the lobby" in app.screen.source
            await pilot.press("escape")
            await wait_for(
                pilot, lambda: not isinstance(app.screen, HelpScreen), what="help closed"
            )
            await pilot.press("n", "enter", "g")  # a solo dice game
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="dice"
            )
            await pilot.press("f1")
            await wait_for(
                pilot, lambda: isinstance(app.screen, HelpScreen), what="help in the game"
            )
            source = app.screen.source
            assert "Yarborough" in source and "second kismet" in source.lower()
            await pilot.press("escape")
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="back to dice"
            )
            await client.close()


async def test_spectator_watches_and_cannot_act(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        await bo.create_table("dice", {})
        await bo.start()
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("r")
            await wait_for(pilot, lambda: bool(app.screen.tables), what="the table list")
            await pilot.press("s")  # watch
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="dice"
            )
            assert client.seat is None
            assert "watching" in str(app.screen.query_one("StatusBar").content)
            await pilot.press("r", "enter")  # no effect for a watcher
            await bo.act({"type": "roll", "hold": []})  # but Bo's throw shows
            await wait_for(
                pilot, lambda: client.game.view(None)["rolls_used"] == 1, what="Bo's throw"
            )
            await wait_for(
                pilot,
                lambda: any(
                    "Bo throws" in line.text for line in app.screen.query_one("#movelog").lines
                ),
                what="Bo's throw in the move log",
            )
            assert client.game.view(None)["cards"][0] == {
                box: None for box in client.game.view(None)["boxes"]
            }
            await client.close()


async def test_the_table_list_shows_as_soon_as_the_lobby_connects(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        await bo.create_table("knock", {})
        app, client = make_app(host, "Cy")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            # No key pressed (and the lobby never polls): the table is listed from the connection alone, so
            # "s" (watch) works at once instead of saying there is no table.
            await wait_for(pilot, lambda: bool(app.screen.tables), what="the table list")
            await pilot.press("s")
            await wait_for(pilot, lambda: client.table is not None, what="watching Bo's table")
            await client.close()


async def test_the_owners_removal_is_told_on_screen(tmp_path):
    # The host's `notice` (a member removed, a game saving again) reaches the players' eyes.
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await ana_makes_a_race_table_bo_joins(pilot, client, bo)
            await pilot.press("x", "enter")  # remove the (first) unready player
            await wait_for(pilot, lambda: len(client.table["seats"]) == 1, what="Bo removed")
            await wait_for(
                pilot,
                lambda: any("Bo" in n and "remov" in n for n in notifications(app)),
                what="word of the removal",
            )
            assert "remov" in str(app.screen.query_one("StatusBar").content)
            await client.close()


async def test_the_owner_picks_whom_to_remove_or_keeps_everyone(tmp_path):
    """x lists the other players, the unready first; a number removes that one (not just the
    last unready, as x did before); escape keeps everyone."""
    from kismet_tui.screens.remove import RemoveScreen

    async with (
        running_host(tmp_path) as host,
        connected(host, "Bo") as bo,
        connected(host, "Cy") as cy,
    ):
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await ana_makes_a_race_table_bo_joins(pilot, client, bo)
            await cy.join_table(client.table["id"])
            await bo.ready()
            await wait_for(
                pilot,
                lambda: len(client.table["seats"]) == 3 and client.table["seats"][1]["ready"],
                what="Cy seated and Bo ready",
            )
            await pilot.press("x")
            await wait_for(
                pilot, lambda: isinstance(app.screen, RemoveScreen), what="whom to remove"
            )
            listed = str(app.screen.query_one("#remove-list").content)
            assert listed.index("Cy") < listed.index("Bo"), "the unready player first"
            assert "not ready" in listed and "Ana" not in listed.split("\n", 2)[2]
            await pilot.press("escape")
            await wait_for(
                pilot, lambda: not isinstance(app.screen, RemoveScreen), what="the box closed"
            )
            await pilot.press("x")
            await wait_for(
                pilot, lambda: isinstance(app.screen, RemoveScreen), what="whom to remove"
            )
            await pilot.press("2")  # Bo, though he is ready
            await wait_for(
                pilot,
                lambda: [s["name"] for s in client.table["seats"]] == ["Ana", "Cy"],
                what="Bo removed, Cy kept",
            )
            await wait_for(pilot, lambda: bo.table is None, what="Bo told and gone")
            await client.close()
