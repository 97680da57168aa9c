"""The new-table form's chip table: typed by keys, refused in words while malformed, sent as
the table's `chips` option, and shown on the race cards."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import make_app, settle, type_text, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]

RISING = list(range(1, 12))  # the 2 carries 1 chip ... the 12 carries 11


def notifications(app) -> list[str]:
    return list(app.notices_shown)


async def test_a_custom_chip_table_is_typed_checked_and_shown_on_the_cards(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("n", "right")  # the form; the race game
            form = app.screen
            chips_line = [key for key, _ in form.rows()].index("chips")
            for _ in range(chips_line):
                await pilot.press("down")
            await pilot.press("left")  # standard -> custom (wraps)
            assert form.value_of("chips") == "custom"
            await pilot.press(*["backspace"] * 30)  # erase the ladder it starts from
            await type_text(pilot, " ".join(map(str, RISING[:10])))
            await wait_for(
                pilot,
                lambda: "(10 so far)" in str(form.query_one("#form").content),
                what="the count of numbers typed",
            )
            assert "1 2 3 4 5 6 7 8 9 10" in str(form.query_one("#form").content)
            await pilot.press("enter")  # ten numbers: refused in words
            await wait_for(
                pilot,
                lambda: any("not complete" in n for n in notifications(app)),
                what="the refusal",
            )
            assert client.table is None and app.screen is form
            await type_text(pilot, " 11")
            await pilot.press("enter")
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            assert client.table["options"]["chips"] == RISING
            await bo.join_table(client.table["id"])
            await bo.ready()
            await wait_for(
                pilot,
                lambda: len(client.table["seats"]) == 2 and client.table["seats"][1]["ready"],
                what="Bo ready",
            )
            await pilot.press("g")
            await wait_for(
                pilot,
                lambda: getattr(app.screen, "RULESET", None) == "race" and app.screen.is_mounted,
                what="the race screen",
            )
            await wait_for(
                pilot,
                lambda: str(app.screen.query_one("#circle").content).strip(),
                what="the circle",
            )
            await settle(pilot, client)
            circle = str(app.screen.query_one("#circle").content)
            cards = [card for card in client.game.view(0)["circle"] if card]
            assert all(card["chip"] == card["number"] - 1 for card in cards)
            # Chips of 7 and more exist only in this table: the cards must show them.
            high = [card for card in cards if card["number"] >= 8]
            assert high, "a circle of eleven cards without an 8 or higher"
            for card in high:
                assert f"({card['number'] - 1})" in circle
            await client.close()
