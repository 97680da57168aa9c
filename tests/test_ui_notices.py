"""Notices on the top line go when their situation ends: a refusal about who is not ready
once they are, a chip table's words once the table exists, and they say what is wrong."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import make_app, type_text, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def notice_words(app) -> str:
    return app.notice.words if app.notice is not None else ""


async def test_waiting_for_goes_once_they_are_ready(tmp_path):
    async with (
        running_host(tmp_path) as host,
        connected(host, "Bo") as bo,
        connected(host, "Zoe") as zoe,
    ):
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            table = await client.create_table("dice", {})
            await bo.join_table(table["id"])
            await zoe.join_table(table["id"])
            await wait_for(pilot, lambda: len(client.table["seats"]) == 3, what="three seats")
            await pilot.press("g")
            await wait_for(pilot, lambda: "waiting for" in notice_words(app), what="the refusal")
            await bo.ready()
            await zoe.ready()
            await wait_for(
                pilot, lambda: all(s["ready"] for s in client.table["seats"][1:]), what="both ready"
            )
            for _ in range(3):
                await pilot.pause()  # the app has heard the table
            # At once, not when its few seconds are up.
            assert "waiting for" not in notice_words(app), notice_words(app)
            # A rematch asked for at a table the owner has since left does not follow to this one.
            app.rematch_wanted, app.rematch_at = True, table["id"] + 100
            await bo.ready(False)
            await wait_for(
                pilot, lambda: not client.table["seats"][1]["ready"], what="Bo not ready"
            )
            for _ in range(3):
                await pilot.pause()
            assert "Another game" not in notice_words(app) and not app.rematch_wanted
            await client.close()


async def test_a_chip_table_says_its_range_and_its_words_go_with_the_form(tmp_path):
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("n", "right")  # the form; the race game
            form = app.screen
            for _ in range([key for key, _ in form.rows()].index("chips")):
                await pilot.press("down")
            await pilot.press("left")  # standard -> custom
            await pilot.press(*["backspace"] * 30)
            await type_text(pilot, "1 2 3 4 5 6 7 8 9 10 100")
            await pilot.press("enter")
            await wait_for(pilot, lambda: "chip table" in notice_words(app), what="the refusal")
            words = notice_words(app)
            assert "not complete" not in words and "between 0 and 99" in words, words
            await pilot.press("backspace", "backspace")  # 100 -> 1
            await pilot.press("enter")
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            await wait_for(
                pilot,
                lambda: "chip table" not in notice_words(app),
                what="the form's words gone at the new table",
            )
            await client.close()
