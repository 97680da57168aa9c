"""Every clock is shown (docs/rules.md [D31]), through a real host on loopback and the real
app driven by Pilot: the status line counts the turn down once a second in the host's time,
the move log says when the host played for someone and why, a player the host plays for is
told how to come back, and any key brings them back. The owner's `b` hands a seat to a bot."""

from __future__ import annotations

import asyncio

import pytest

from kismet_tui.widgets.status import StatusBar
from tests.netutil import connected, running_host
from tests.uiutil import make_app, seat_both, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def status(screen) -> str:
    return screen.query_one(StatusBar).shown


def logged(screen) -> list[str]:
    return [text.plain for text in screen.query_one("#movelog").said]


async def plays_along(bo) -> None:
    """Bo plays each of his dice turns, a moment after it began: one throw, the first open
    box (so a game with an idle Ana lasts a few seconds)."""
    from kismet_tui.net import ActionRefused

    while True:
        game = bo.game
        if (
            game is not None
            and not game.finished
            and game.current == bo.seat
            and not game.away[bo.seat]
        ):
            await asyncio.sleep(0.4)
            try:
                if game.rolls == 0:
                    await bo.act({"type": "roll", "hold": []})
                box = next(b for b, points in game.cards[bo.seat].items() if points is None)
                await bo.act({"type": "score", "box": box})
            except ActionRefused:
                pass  # the host played it first: look again
        await asyncio.sleep(0.02)


async def test_the_turn_counts_down_in_the_status_line(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(100, 30)) as pilot:
            await seat_both(pilot, app, client, bo, "dice", {"turn_limit_ms": 20_000})
            game, screen = client.game, app.screen
            whose = "Your turn" if game.current == client.seat else "Bo's turn"
            await wait_for(pilot, lambda: f"{whose}: " in status(screen), what="the turn's clock")
            first = status(screen)
            assert "s left" in first
            # Once a second, in the host's time: the clock moves on without any event.
            events = len(client.events)
            await wait_for(pilot, lambda: status(screen) != first, 5, "the clock to count down")
            assert len(client.events) == events
            left = [int(word) for word in status(screen).split(": ")[1].split() if word.isdigit()][
                0
            ]
            assert 10 <= left < 20
            await client.close()


async def test_the_move_log_says_why_the_host_played_and_a_key_brings_you_back(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(100, 30)) as pilot:
            await seat_both(pilot, app, client, bo, "dice", {"turn_limit_ms": 1000})
            screen = app.screen
            bo_plays = asyncio.create_task(plays_along(bo))
            # Ana does not play: the host plays her turn when its second has passed. (On a busy
            # machine Bo may be a second late too, and be played for first: Ana's line counts.)
            await wait_for(
                pilot,
                lambda: any(
                    line.startswith("The host scored ") and " for Ana: " in line
                    for line in logged(screen)
                ),
                what="the host's move for Ana in the log",
            )
            line = next(
                line
                for line in logged(screen)
                if line.startswith("The host scored ") and " for Ana: " in line
            )
            assert line.endswith(": the 1 s turn limit passed."), line
            # Two turns missed: Ana is idle, and told how to come back.
            await wait_for(pilot, lambda: client.game.idle[client.seat], what="Ana idle")
            await wait_for(
                pilot, lambda: "press any key to come back" in status(screen), what="the words"
            )
            assert any(
                line == "Ana is away: the host plays for them until they press a key."
                for line in logged(screen)
            )
            await pilot.press("space")
            await wait_for(pilot, lambda: not client.game.away[client.seat], what="Ana back")
            await wait_for(
                pilot, lambda: "press any key" not in status(screen), what="the words gone"
            )
            bo_plays.cancel()
            await client.close()


async def test_the_owner_hands_a_seat_to_a_bot_with_b(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            # Ana owns the table this time; Bo sits down.
            await pilot.press("n")
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "NewTableScreen", what="the form"
            )
            await pilot.press("enter")
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            await bo.join_table(client.table["id"])
            await bo.ready()
            await wait_for(
                pilot,
                lambda: len(client.table["seats"]) == 2 and client.table["seats"][1]["ready"],
                what="Bo ready",
            )
            await pilot.press("g")  # start
            await wait_for(
                pilot,
                lambda: getattr(app.screen, "RULESET", None) == "dice",
                what="the dice screen",
            )
            game = client.game
            if game.current == client.seat:  # Ana plays her turn: then it is Bo's
                await pilot.press("r")
                await wait_for(pilot, lambda: game.rolls == 1, what="the throw")
                await pilot.press("enter")
            await wait_for(pilot, lambda: game.current == bo.seat, what="Bo's turn")
            await wait_for(
                pilot, lambda: app.screen.check_action("hand_to_bot", ()), what="the key"
            )
            await pilot.press("b")
            await wait_for(
                pilot, lambda: game.current == client.seat or game.idle[bo.seat], what="Bo handed"
            )
            await wait_for(
                pilot,
                lambda: "Ana handed Bo's seat to a bot." in app.notices_shown,
                what="the words",
            )
            assert any(
                e["action"] == {"type": "away", "seat": bo.seat, "idle": True}
                for e in client.events
            )
            await client.close()


def test_no_time_limit_is_shown_as_the_owners_choice():
    from kismet_tui.screens.lobby import NO_LIMIT, render_my_table, time_limit_words

    assert NO_LIMIT == "no time limit (chosen by the owner)"
    assert time_limit_words(0) == NO_LIMIT
    assert time_limit_words(60_000) == "60 s per turn"
    assert time_limit_words(None) == ""  # race: its round limit, no turn limit
    table = {
        "id": 3,
        "ruleset": "knock",
        "state": "lobby",
        "max_seats": 8,
        "owner": 1,
        "options": {"turn_limit_ms": 0},
        "seats": [{"name": "Ana", "client_id": 1}],
    }
    assert NO_LIMIT in render_my_table(table, 1).plain
    table["options"] = {"turn_limit_ms": 30_000}
    assert "30 s per turn" in render_my_table(table, 1).plain


async def test_the_table_list_says_which_tables_have_no_time_limit(tmp_path):
    async with (
        running_host(tmp_path) as host,
        connected(host, "Ana") as ana,
        connected(host, "Bo") as bo,
    ):
        await ana.create_table("dice", {"turn_limit_ms": 0})
        tables = await bo.list_tables()
        assert [t["turn_limit_ms"] for t in tables] == [0]
        await bo.create_table("knock")
        tables = await ana.list_tables()
        assert sorted(t["turn_limit_ms"] for t in tables) == [0, 30_000]


async def test_a_clock_that_grows_beside_a_notice_is_never_cut(monkeypatch):
    """The notice came first, beside a short clock; then the clock grew (the host began to
    play for you): the clock's words stay whole, under the notice when no longer beside it."""
    from kismet_tui.app import KismetApp
    from kismet_tui.screens.game import GameScreen
    from kismet_tui.words.clocks import idle_words
    from tests.uiutil import dice_mid_game, until_screen

    # This test sets the clock itself: the screen's own once-a-second clock (an interval made
    # when it mounts, which a slow machine lets fire mid-test) shows nothing.
    monkeypatch.setattr(GameScreen, "show_clocks", lambda self: None)
    app = KismetApp(dice_mid_game(), address="this computer")
    async with app.run_test(size=(100, 30)) as pilot:
        await until_screen("DiceScreen")(pilot)
        screen = app.screen
        bar = screen.query_one(StatusBar)
        bar.set_clock("Bo's turn: 9 s left")
        app.notify(
            "Ana missed 2 turns: the host plays for them until they press a key.", timeout=30
        )
        await pilot.pause()
        assert bar.shown.rstrip().endswith("Bo's turn: 9 s left"), bar.shown
        bar.set_clock(idle_words(True))
        await pilot.pause()
        assert bar.shown.rstrip().endswith(idle_words(True)), bar.shown
        assert all(len(line) <= 100 for line in bar.shown.splitlines()), bar.shown
        assert "Ana missed 2 turns: the host plays for them until they press a key." in bar.shown


async def test_the_idle_words_are_whole_at_80_columns_beside_a_long_address(monkeypatch):
    """Joined by address, at 80 columns: "The host plays for you: press any key to come back."
    is read whole (the address gives way; the mark still says connected), never cut at "to"."""
    from kismet_tui.app import KismetApp
    from kismet_tui.screens.game import GameScreen
    from kismet_tui.words.clocks import idle_words
    from tests.uiutil import dice_mid_game, until_screen

    # The test sets the clock itself (as the test above: the screen's interval, made when it
    # mounts, keeps the method it was given, and on a busy machine set "Your turn" mid-test).
    monkeypatch.setattr(GameScreen, "show_clocks", lambda self: None)
    app = KismetApp(dice_mid_game(), address="127.0.0.1:46377")
    async with app.run_test(size=(80, 24)) as pilot:
        await until_screen("DiceScreen")(pilot)
        screen = app.screen
        bar = screen.query_one(StatusBar)
        bar.set_clock("Bo's turn: 9 s left")
        await pilot.pause()
        assert "127.0.0.1:46377" in bar.shown, "a short clock leaves the address be"
        bar.set_clock(idle_words(True))
        await pilot.pause()
        assert idle_words(True) in bar.shown, bar.shown
        assert all(len(line) <= 80 for line in bar.shown.splitlines()), bar.shown
