"""The end of a game: the ranking box, the keys after "see the board", and a rematch that
every member hears about."""

from __future__ import annotations

import pytest

from kismet_tui.rematch import rematch_line
from tests.netutil import connected, running_host
from tests.uiutil import footer_keys, make_app, play_dice_to_the_end, seat_both, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def test_rematch_keys_after_see_the_board_and_both_told(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "dice", {})
            first = client.game
            await play_dice_to_the_end(pilot, app, client, other)
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box"
            )
            await pilot.press("escape")  # see the board
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the board"
            )
            await wait_for(
                pilot,
                lambda: (
                    footer_keys(app).get("r") == "Play again"
                    and footer_keys(app).get("enter") == "Results"
                ),
                what="the end keys in the footer",
            )
            keys = footer_keys(app)
            assert "1" not in keys and "h" not in keys, (
                "no game key is offered once the game is over"
            )
            await pilot.press("enter")  # the ranking again
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box again"
            )
            await pilot.press("escape")
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="the board"
            )
            await pilot.press("r")  # Ana wants another game
            await wait_for(
                pilot,
                lambda: (other.table or {}).get("seats", [{}, {}])[1].get("ready"),
                what="Bo's table to show Ana ready",
            )
            assert rematch_line(other.table) == "Ana wants another game; waiting for Bo to press r."
            # Ana's board says it too, and then Bo's answer.
            await other.ready(True)

            def log_text() -> str:
                return " ".join(line.text for line in app.screen.query_one("#movelog").lines)

            await wait_for(
                pilot,
                lambda: "Bo and Ana want another game" in " ".join(log_text().split()),
                what="Ana told of Bo's wish",
            )
            await other.start()
            await wait_for(
                pilot,
                lambda: (
                    client.game is not None
                    and client.game is not first
                    and getattr(app.screen, "RULESET", None) == "dice"
                    and getattr(app.screen, "game", None) is client.game
                ),
                what="the rematch on screen",
            )
            assert "Ready for another game: Bo starts it." in app.notices_shown
            assert app.notice is None, "the notice about the coming game is over once it starts"
            await client.close()


async def test_owner_rematch_waits_for_the_others_then_starts(tmp_path):
    """Bo owns the table here: his r says whom it waits for, and the game starts by itself
    once Ana presses r too."""
    async with running_host(tmp_path) as host, connected(host, "Ana") as other:
        app, client = make_app(host, "Bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("n", "enter")  # Bo makes a dice table
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            await other.join_table(client.table["id"])
            await other.ready(True)
            await wait_for(
                pilot,
                lambda: len(client.table["seats"]) == 2 and client.table["seats"][1]["ready"],
                what="Ana seated and ready",
            )
            await pilot.press("g")
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="dice"
            )
            first = client.game
            # Seat 0 is Bo (the app), seat 1 is Ana (a bare client): swap the roles of the helper.
            game = client.game
            while not game.finished:
                view = game.view(0)
                turn = view["turn"]
                if view["current"] == 0:
                    await pilot.press("r")
                    await wait_for(pilot, lambda: game.view(0)["can_score"], what="Bo's throw")
                    await pilot.press("enter")
                else:
                    await other.act({"type": "roll", "hold": []})
                    await wait_for(
                        pilot, lambda: other.game.view(1)["can_score"], what="Ana's throw"
                    )
                    box = next(b for b, p in other.game.view(1)["preview"].items() if p["legal"])
                    await other.act({"type": "score", "box": box})
                await wait_for(
                    pilot, lambda: game.finished or game.view(0)["turn"] != turn, what="a score"
                )
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end box"
            )
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: any("as soon as Ana presses r" in n for n in app.notices_shown),
                what="whom the rematch waits for",
            )
            await wait_for(
                pilot,
                lambda: "Bo wants another game" in str(app.screen.query_one("#rematch").content),
                what="the end box line",
            )
            assert client.game is first
            await other.ready(True)
            await wait_for(
                pilot,
                lambda: (
                    client.game is not None
                    and client.game is not first
                    and getattr(app.screen, "RULESET", None) == "dice"
                    and getattr(app.screen, "game", None) is client.game
                ),
                what="the rematch started by Bo's client",
            )
            await client.close()


async def test_rematch_at_a_play_a_game_now_table_with_bots(tmp_path):
    """The start-up form's table (made and started at once, with a bot): after the game, r
    starts the next one. It used to say "waiting for Bot 1 (medium)" forever."""
    import asyncio

    from kismet_tui.app import KismetApp
    from kismet_tui.bots.runner import BotLoop, bot_factory
    from kismet_tui.net import Client

    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        client = Client(reconnect=False)
        app = KismetApp(
            client,
            connect=lambda: client.connect("127.0.0.1", host.port, "Ana"),
            quick=True,
            on_quit=client.close,
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "NewTableScreen", what="the form"
            )
            await pilot.press("enter")  # dice, one bot: play
            await wait_for(
                pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="dice"
            )
            first = client.game
            # Ana's moves are not what this test is about: a greedy bot makes them for her.
            hands = asyncio.create_task(BotLoop(client, "greedy", 0.01, rematches=False).run())
            try:
                await wait_for(
                    pilot, lambda: type(app.screen).__name__ == "EndScreen", 60, "the end box"
                )
            finally:
                hands.cancel()
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: (
                    client.game is not None
                    and client.game is not first
                    and getattr(app.screen, "game", None) is client.game
                ),
                what="the next game on screen",
            )
            assert not any("waiting for Bot" in words for words in app.notices_shown)
            await client.close()
