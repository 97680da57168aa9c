"""The host pushes the table list to a connection that asked for it once, whenever the list's
summaries change: coalesced, never the same list twice, never to a connection that did not ask."""

import asyncio
import contextlib

import pytest

from tests.netutil import connected, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


@contextlib.asynccontextmanager
async def pushes_to(client):
    """The whole list after each push the client is sent from now on (the client applies a
    `tables_changed` and publishes it with the whole list under "tables")."""
    got: list[list[dict]] = []
    messages = client.messages()

    async def collect() -> None:
        async for message in messages:
            if message.get("type") in ("tables", "tables_changed") and "re" not in message:
                got.append(message["tables"])

    task = asyncio.create_task(collect())
    try:
        yield got
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def seats_of(tables: list[dict]) -> list[list[str]]:
    return [table["seats"] for table in tables]


async def test_a_second_client_opening_and_joining_a_table_is_pushed_to_the_first(tmp_path):
    async with running_host(tmp_path) as host:
        # No window: each change is looked at on its own, so a push that repeats the list
        # (below, after a ready) would arrive here rather than be folded into the next.
        host.table_list.every_s = 0.0
        async with (
            connected(host, "Ana") as ana,
            connected(host, "Bo") as bo,
            connected(host, "Cy") as cy,
            pushes_to(ana) as to_ana,
            pushes_to(bo) as to_bo,
        ):
            assert await ana.list_tables() == []
            table = await bo.create_table("dice")
            await wait_until(lambda: len(to_ana) == 1)
            assert seats_of(to_ana[0]) == [["Bo"]] and to_ana[0][0]["id"] == table["id"]
            assert to_ana[0][0]["owner"] == "Bo" and to_ana[0][0]["state"] == "lobby"
            await cy.join_table(table["id"])
            await wait_until(lambda: len(to_ana) == 2)
            assert seats_of(to_ana[1]) == [["Bo", "Cy"]]
            # Changes the summaries do not show (a seat readied, a chat line) push nothing:
            # the next push is the next real change, a table opened by someone else.
            await cy.ready()
            await cy.chat("hello")
            async with connected(host, "Di") as di:
                await di.create_table("race")
                await wait_until(lambda: len(to_ana) == 3)
                assert seats_of(to_ana[2]) == [["Bo", "Cy"], ["Di"]]
                await di.leave()  # the table closes: it leaves the list
                await wait_until(lambda: len(to_ana) == 4)
                assert seats_of(to_ana[3]) == [["Bo", "Cy"]]
            # The answer's body, without `re`: the same list a fresh list_tables gives.
            assert await ana.list_tables() == to_ana[3]
            assert all(a != b for a, b in zip(to_ana, to_ana[1:]))  # never the same list twice
            assert to_bo == []  # Bo never asked for the list: nothing is pushed to him


async def test_changes_close_together_are_pushed_once(tmp_path):
    async with running_host(tmp_path) as host:
        # A long window, so that the two joins surely fall inside it on a busy machine.
        host.table_list.every_s = 3.0
        async with (
            connected(host, "Ana") as ana,
            connected(host, "Bo") as bo,
            connected(host, "Cy") as cy,
            connected(host, "Di") as di,
            pushes_to(ana) as to_ana,
        ):
            await ana.list_tables()
            table = await bo.create_table("race")
            await wait_until(lambda: len(to_ana) == 1)
            await cy.join_table(table["id"])
            await di.join_table(table["id"])
            await wait_until(lambda: len(to_ana) == 2)
            # Cy's seat alone was never pushed: both joins came in one push.
            assert seats_of(to_ana[1]) == [["Bo", "Cy", "Di"]]
