"""Leaving is honest in `kismet` alone (issue 30 point 3): ctrl+l pauses a game with bots
(no bot moves, no timeout, the lobby offers it), enter goes back to it; a game left
unfinished is offered again when the app starts again on the same state folder; a new table
leaves the paused game for good; and at a shared table the words say how long the seat waits."""

from __future__ import annotations

import time

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.bots.runner import bot_factory
from kismet_tui.cli import connect_solo
from kismet_tui.net.client import Client
from server import Host
from tests.netutil import FAST, running_host
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def solo_host(state_dir) -> Host:
    """`kismet`'s own host, as kismet_tui/cli.py local_main makes it."""
    return Host(state_dir=state_dir, bot_factory=bot_factory(speed=0.01), pause_alone=True)


def solo_app(host: Host, state_dir) -> tuple[KismetApp, Client]:
    """The app as `kismet` makes it: its hello keeps the token in the state folder."""
    client = Client(reconnect=False)
    app = KismetApp(
        client,
        connect=lambda: connect_solo(app, client, host.port, "Ana", state_dir),
        address="this computer",
        on_quit=client.close,
    )
    return app, client


# FAST's race, with reveals long enough that the game lasts seconds: with 20 ms reveals it
# can end within a second of going on, before a busy machine's test has looked (see
# game_shown) or even pressed ctrl+l.
RACE = {**FAST["race"], "reveal_ms": 300}


async def start_race(pilot, app, client) -> None:
    await wait_for(pilot, lambda: client.state == "connected", what="connection")
    await client.create_table("race", RACE, bots=["easy", "easy"])
    await client.start()
    await wait_for(pilot, lambda: game_shown(app), what="the race screen")
    await wait_for(pilot, lambda: len(client.events) >= 6, what="play under way")


def game_shown(app) -> bool:
    """The race's screen is in the app's stack: on top, or under the end screen of a game
    that went on and ended meanwhile (which is no stall: looking only at the top screen,
    two CI runs on a busy machine missed the seconds it was there and waited in vain)."""
    return any(getattr(screen, "RULESET", None) == "race" for screen in app.screen_stack)


def the_table(host: Host):
    (table,) = host.tables.values()
    return table


async def stays_still(pilot, table, seconds: float = 1.5) -> None:
    """Nothing is stamped for `seconds`: the race's host timers (countdown 50 ms, reveals of
    300 ms, rounds of 500 ms) and the bots (speed 0.01) would move it several times over
    meanwhile."""
    events = len(table.events)
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        assert len(table.events) == events, "the paused game moved on"
        await pilot.pause(0.05)


def lobby_text(app) -> str:
    return str(app.screen.query_one("#mytable").render())


async def test_ctrl_l_pauses_a_solo_game_and_enter_goes_back(tmp_path):
    async with running_host(
        tmp_path, bot_factory=bot_factory(speed=0.01), pause_alone=True
    ) as host:
        app, client = solo_app(host, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await start_race(pilot, app, client)
            await pilot.press("ctrl+l")
            await wait_for(
                pilot, lambda: type(app.screen).__name__ == "LobbyScreen", what="the lobby"
            )
            table = the_table(host)
            assert table.paused_at is not None
            await stays_still(pilot, table)
            await wait_for(
                pilot, lambda: "paused: enter to go back" in lobby_text(app), what="the offer"
            )
            assert any("paused: enter on table" in words for words in app.notices_shown), (
                app.notices_shown
            )
            events = len(table.events)
            assert not game_shown(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: game_shown(app), what="the game again")
            assert table.paused_at is None
            await wait_for(pilot, lambda: len(table.events) > events, what="play going on")
            await client.close()


async def test_a_solo_game_is_offered_again_after_the_app_closed(tmp_path):
    host = solo_host(tmp_path)
    await host.start("127.0.0.1", 0)
    try:
        app, client = solo_app(host, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await start_race(pilot, app, client)
            table_id = the_table(host).id
            seq = len(the_table(host).events)
            await client.close()  # as the app quitting, or its terminal closing
    finally:
        await host.stop()
    host = solo_host(tmp_path)  # the next start, on the same state folder
    await host.start("127.0.0.1", 0)
    try:
        table = host.tables[table_id]
        assert table.paused_at is not None, host.resumed
        app, client = solo_app(host, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                pilot, lambda: "paused: enter to go back" in lobby_text(app), what="the offer"
            )
            assert type(app.screen).__name__ == "LobbyScreen"  # not the new-table form
            assert any(
                f"unfinished game waits at table {table_id}: enter goes back, n leaves it." in w
                for w in app.notices_shown
            ), app.notices_shown
            await stays_still(pilot, table, 1.0)
            assert not game_shown(app)
            await pilot.press("enter")
            await wait_for(pilot, lambda: game_shown(app), what="the game again")
            assert client.seat == 0 and len(client.events) >= seq
            await wait_for(
                pilot,
                lambda: len(table.events) > len(client.events) - 1 and table.paused_at is None,
                what="play going on",
            )
            await client.close()
    finally:
        await host.stop()


async def test_a_new_table_leaves_the_paused_game_for_good(tmp_path):
    async with running_host(
        tmp_path, bot_factory=bot_factory(speed=0.01), pause_alone=True
    ) as host:
        app, client = solo_app(host, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await start_race(pilot, app, client)
            old = the_table(host)
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: old.paused_at is not None, what="the pause")
            path = old.writer.path
            await client.create_table("dice", {}, bots=["easy"])
            assert old.id not in host.tables
            await wait_for(
                pilot, lambda: any("for good" in w for w in app.notices_shown), what="the words"
            )
            await client.close()
    # Closed unfinished with Ana away: the records rank her, who left, last (protocol/leavers.py).
    from protocol.gamelog import read_game_log
    from protocol.leavers import Leavers

    log = read_game_log(path)
    leavers = Leavers(log.header)
    for event in log.events:
        leavers.see(event)
    assert log.end is None and leavers.left(finished=False) == [0]


async def test_the_seat_wait_words_say_how_long(tmp_path):
    from tests.netutil import connected
    from tests.uiutil import make_app, seat_both

    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "dice", {"away_limit_ms": 45_000})
            await pilot.press("ctrl+l")
            await wait_for(
                pilot, lambda: any("waits" in w for w in app.notices_shown), what="the words"
            )
            words = next(w for w in app.notices_shown if "waits" in w)
            assert "Your seat waits 45 s" in words and "table" in words, words
            await client.close()
