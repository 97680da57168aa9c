"""The lobby takes the host's pushed table list: a table opened after the lobby connected
shows without a key pressed, and nothing polls."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.test_ui_dice import wait_for
from tests.test_ui_games import make_app

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
            await wait_for(pilot, lambda: client.state == "connected" and len(asked) == 1, what="the first ask")
            await bo.create_table("knock", {})                 # after the lobby asked
            await wait_for(pilot, lambda: len(app.screen.tables) == 1, what="the pushed table")
            grid = app.screen.query_one("#tables")
            await wait_for(pilot, lambda: grid.row_count == 1, what="the table drawn")
            assert len(asked) == 1, "shown from the host's push, not asked again"
            await client.close()
