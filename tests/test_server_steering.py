"""The owner steers the table: between games the owner removes a member (told to everyone in
words, and the removed player may not sit there again); a seat still unready a set time after
the owner asked to start is freed. Over real TCP; the lobby key drives the real app."""

import asyncio

import pytest

from kismet_tui.net.client import RequestError
from tests.hostutil import _client
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(60)]


def heard(client, kinds=("error", "notice")):
    seen = []

    async def collect():
        async for message in client.messages():
            if message["type"] in kinds and message.get("re") is None:
                seen.append(message)

    return seen, asyncio.create_task(collect())


async def a_table_with_a_stranger(host):
    ana, bo, cy = await _client(host, "Ana"), await _client(host, "Bo"), await _client(host, "Cy")
    table = await ana.create_table("dice")
    await bo.join_table(table["id"])
    await bo.ready()
    await cy.join_table(table["id"])  # sits down, never readies
    await wait_until(lambda: len(ana.table["seats"]) == 3)
    return ana, bo, cy, table["id"]


async def test_the_owner_removes_a_member_between_games(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo, cy, table_id = await a_table_with_a_stranger(host)
        bo_heard, bo_task = heard(bo)
        cy_heard, cy_task = heard(cy)
        with pytest.raises(RequestError) as refused:
            await bo.remove(2)
        assert refused.value.code == "not_owner"
        with pytest.raises(RequestError) as refused:
            await ana.remove(0)
        assert "leave the table instead" in refused.value.words
        await ana.remove(2)
        await wait_until(lambda: cy_heard and bo_heard)
        assert cy_heard[0]["code"] == "removed"
        assert cy_heard[0]["words"] == f"Ana, the owner, removed you from table {table_id}."
        assert bo_heard[0]["words"] == "Ana removed Cy from the table."
        await wait_until(lambda: cy.table is None and len(bo.table["seats"]) == 2)
        with pytest.raises(RequestError) as refused:
            await cy.join_table(table_id)
        assert refused.value.code == "removed"
        await ana.start()  # the rematch is no longer blocked
        await wait_until(lambda: bo.game is not None)
        with pytest.raises(RequestError) as refused:
            await ana.remove(1)
        assert refused.value.words == "Players can be removed only between games."
        bo_task.cancel()
        cy_task.cancel()
        for client in (ana, bo, cy):
            await client.close()


async def test_a_seat_left_unready_after_the_start_was_asked_is_freed(tmp_path):
    async with running_host(tmp_path) as host:
        host.steering.unready_limit_s = 0.3
        ana, bo, cy, table_id = await a_table_with_a_stranger(host)
        cy_heard, cy_task = heard(cy)
        with pytest.raises(RequestError) as refused:
            await ana.start()
        assert refused.value.words == (
            "Not everyone is ready: waiting for Cy. A seat still not "
            "ready 0.3 s after the start was asked is freed."
        )
        await wait_until(lambda: len(ana.table["seats"]) == 2)
        assert [s["name"] for s in ana.table["seats"]] == ["Ana", "Bo"]
        await wait_until(lambda: len(cy_heard) >= 2)
        # Told at once that the start was asked and the time runs, then that it ran out.
        assert cy_heard[0]["code"] == "start_asked"
        assert (
            cy_heard[0]["words"]
            == "Ana wants to start: say you are ready within 0.3 s, or lose your seat."
        )
        assert "not ready 0.3 s after the owner asked to start" in cy_heard[1]["words"]
        assert ana.table["free_unready_at"] is None, "the countdown is over"
        await ana.start()
        await wait_until(lambda: bo.game is not None)
        cy_task.cancel()
        for client in (ana, bo, cy):
            await client.close()


async def test_the_unready_see_when_their_seat_is_freed(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo, cy, table_id = await a_table_with_a_stranger(host)
        bo_heard, bo_task = heard(bo)
        assert ana.table["free_unready_at"] is None
        asked_at = host.now_ms()
        with pytest.raises(RequestError):
            await ana.start()
        await wait_until(lambda: cy.table["free_unready_at"] is not None)
        assert asked_at + 60_000 <= cy.table["free_unready_at"] <= host.now_ms() + 60_000
        await cy.ready()
        await ana.start()  # everyone ready: the countdown is off
        await wait_until(lambda: cy.table["state"] == "playing")
        assert cy.table["free_unready_at"] is None and host.steering.unready_timers == {}
        assert bo_heard == [], "Bo was ready: nothing to tell him"
        bo_task.cancel()
        for client in (ana, bo, cy):
            await client.close()


@pytest.mark.ui
async def test_the_lobby_key_x_removes_the_unready_member(tmp_path):
    from textual.widgets import Footer

    from tests.uiutil import make_app, wait_for

    async with running_host(tmp_path) as host:
        bo = await _client(host, "Bo")
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("n", "enter")
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            await bo.join_table(client.table["id"])
            await wait_for(pilot, lambda: len(client.table["seats"]) == 2, what="Bo's seat")
            # The footer shows the key while someone unready sits here.
            await wait_for(
                pilot,
                lambda: (
                    app.screen.active_bindings.get("x") is not None
                    and app.screen.active_bindings["x"].enabled
                ),
                what="the remove key",
            )
            shown = app.screen.active_bindings.get("x")
            assert shown is not None and shown.enabled and shown.binding.description == "Remove"
            assert app.screen.query_one(Footer) is not None
            await pilot.press("x", "enter")  # whom: the first listed, Bo
            await wait_for(pilot, lambda: len(client.table["seats"]) == 1, what="Bo removed")
            await wait_for(pilot, lambda: bo.table is None, what="Bo told")
        await bo.close()


@pytest.mark.ui
async def test_the_unready_player_is_told_and_sees_the_seconds_go(tmp_path):
    """Issue 21 point 6: Bo, not ready, is told at once that Ana pressed start and that his
    seat is freed if he stays unready; his table pane counts the seconds down; y stops it."""
    from tests.uiutil import make_app, wait_for

    async with running_host(tmp_path) as host:
        host.steering.unready_limit_s = 30
        ana = await _client(host, "Ana")
        table = await ana.create_table("dice")
        app, client = make_app(host, "Bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await client.join_table(table["id"])
            await wait_for(pilot, lambda: len(ana.table["seats"]) == 2, what="Bo's seat")
            with pytest.raises(RequestError):
                await ana.start()
            pane = app.screen.query_one("#mytable")

            def seconds_shown() -> int | None:
                words = " ".join(str(pane.content).split())
                if (
                    "Start asked: press y within" not in words
                    or "or your seat is freed." not in words
                ):
                    return None
                return int(words.split("press y within ")[1].split(" s")[0])

            await wait_for(pilot, lambda: seconds_shown() is not None, what="the countdown")
            first = seconds_shown()
            # (31 at most: the app counts on its estimate of the host's clock, which on a busy
            # machine may run a moment behind, and rounds the seconds up.)
            assert first is not None and 28 <= first <= 31
            assert any(
                "Ana wants to start: say you are ready within 30 s" in words
                for words in app.notices_shown
            ), app.notices_shown
            await wait_for(pilot, lambda: (seconds_shown() or first) < first, what="a second less")
            await pilot.press("y")
            await wait_for(
                pilot, lambda: "press y" not in str(pane.content), what="the line gone once ready"
            )
            await ana.start()
            await wait_for(
                pilot,
                lambda: getattr(app.screen, "game", None) is client.game is not None,
                what="the game on screen",
            )
            await client.close()
        await ana.close()
