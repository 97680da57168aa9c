"""The lobby takes the host's pushed table list: a table opened after the lobby connected
shows without a key pressed, and nothing polls."""

from __future__ import annotations

import pytest
from textual.widgets.data_table import RowKey

from tests.netutil import connected, running_host
from tests.uiutil import make_app, settle, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def test_a_table_opened_later_shows_in_the_lobby_by_itself(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Cy")
        asked: list[int] = []
        list_tables = client.list_tables

        async def counted():
            asked.append(1)
            return await list_tables()

        client.list_tables = counted
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                pilot, lambda: client.state == "connected" and len(asked) == 1, what="the first ask"
            )
            await bo.create_table("knock", {})  # after the lobby asked
            await wait_for(pilot, lambda: len(app.screen.tables) == 1, what="the pushed table")
            grid = app.screen.query_one("#tables")
            await wait_for(pilot, lambda: grid.row_count == 1, what="the table drawn")
            assert len(asked) == 1, "shown from the host's push, not asked again"
            await client.close()


def counting(calls: list, name: str, method):
    """`method`, noting each call's first argument under `name` in `calls`."""

    def counted(*args, **kwargs):
        calls.append((name, args[0] if args else None))
        return method(*args, **kwargs)

    return counted


async def test_the_lobby_redraws_only_the_rows_that_changed(tmp_path):
    async with (
        running_host(tmp_path) as host,
        connected(host, "Bo") as bo,
        connected(host, "Cy") as cy,
        connected(host, "Di") as di,
        connected(host, "Eve") as eve,
        connected(host, "Fi") as fi,
    ):
        first = (await bo.create_table("dice"))["id"]
        second = (await cy.create_table("race"))["id"]
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(100, 30)) as pilot:
            grid = app.screen.query_one("#tables")
            await wait_for(pilot, lambda: grid.row_count == 2, what="both tables drawn")
            calls: list = []
            for name in ("clear", "add_row", "remove_row", "update_cell"):
                setattr(grid, name, counting(calls, name, getattr(grid, name)))
            first_row = grid.rows[RowKey(str(first))]

            await di.join_table(second)  # the second table's seats change
            await wait_for(
                pilot,
                lambda: str(grid.get_cell(str(second), "seats")).startswith("2/"),
                what="the second table's new seat",
            )
            assert {name for name, _ in calls} == {"update_cell"}, calls
            assert {str(row) for _, row in calls} == {str(second)}, "only the changed row redrawn"
            assert grid.rows[RowKey(str(first))] is first_row  # the other row was never rebuilt

            calls.clear()
            await eve.join_table(first, spectator=True)  # a watcher: nothing the lobby shows
            await wait_for(
                pilot, lambda: app.screen.tables[0]["spectators"] == 1, what="the watcher pushed"
            )
            await settle(pilot, client)
            assert calls == [], "a change the lobby does not show redrew nothing"

            await pilot.press("down")  # the cursor on the second table
            assert app.screen.chosen_table_id() == second
            third = (await fi.create_table("knock"))["id"]
            await wait_for(pilot, lambda: grid.row_count == 3, what="a new table's row")
            assert [key.value for key in grid.rows] == [str(first), str(second), str(third)]
            assert str(grid.get_cell(str(third), "players")).startswith("Fi")
            assert {name for name, _ in calls} == {"add_row"}
            await eve.leave()
            await bo.leave()  # the first table's last human leaves: it closes
            await wait_for(pilot, lambda: grid.row_count == 2, what="the closed table's row gone")
            assert [key.value for key in grid.rows] == [str(second), str(third)]
            assert app.screen.chosen_table_id() == second, "the cursor stays on its table"
            assert [entry["id"] for entry in app.screen.tables] == [second, third]
            await fi.leave()
            await wait_for(pilot, lambda: grid.row_count == 1, what="the third table's row gone")
            assert "clear" not in {name for name, _ in calls}
            await client.close()
