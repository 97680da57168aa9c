"""One connection churning at a table (watch, leave, watch, ... at the host's message rate)
costs the lobbies next to nothing: each listener is pushed at most a few times a second, each
push carries only the tables that changed (`tables_changed`, docs/protocol.md), and nothing a
listener already has is pushed again. A listener that asked the old way still gets whole
lists, as rarely. Raw protocol clients against a host on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from protocol import limits
from protocol.framing import FROM_HOST, read_frame
from tests.hostutil import Raw
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]

TABLES = 20
CHURN_S = 3.0
PER_SECOND = 2  # the most pushes a listener may get in a second


async def hello(host, name: str) -> Raw:
    raw = await Raw().open(host.port)
    await raw.hello(name)
    return raw


async def open_tables(host, count: int) -> list[Raw]:
    """`count` players, each at a dice table of their own (a table closes when its last
    human leaves, so they stay connected)."""
    owners = []
    for number in range(count):
        owner = await hello(host, f"Owner {number}")
        owner.send({"type": "create_table", "ruleset": "dice", "id": 1})
        await owner.recv_type("ok")
        owners.append(owner)
    return owners


class Listener:
    """A raw lobby: asks for the list once, then records every push without `re` (with the
    time it came) and applies it to the list it holds, as a client would."""

    def __init__(self, raw: Raw) -> None:
        self.raw = raw
        self.tables: dict[int, dict] = {}
        self.pushes: list[tuple[float, dict]] = []
        self.repeats: list[dict] = []  # pushes that brought nothing new
        self.task: asyncio.Task | None = None

    async def ask(self, changes: bool = True) -> list[dict]:
        message = {"type": "list_tables", "id": 7}
        if changes:
            message["changes"] = True
        self.raw.send(message)
        answer = await self.raw.recv_type("tables")
        assert answer["re"] == 7
        self.tables = {entry["id"]: entry for entry in answer["tables"]}
        self.task = asyncio.create_task(self.read())
        return answer["tables"]

    async def read(self) -> None:
        while True:
            try:
                message = await read_frame(self.raw.reader, FROM_HOST)
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            if message.get("type") not in ("tables", "tables_changed") or "re" in message:
                continue
            self.pushes.append((time.monotonic(), message))
            before = dict(self.tables)
            if message["type"] == "tables":
                self.tables = {entry["id"]: entry for entry in message["tables"]}
            else:
                for entry in message["changed"]:
                    if self.tables.get(entry["id"]) == entry:
                        self.repeats.append(message)  # an entry it had already
                    self.tables[entry["id"]] = entry
                for table_id in message["removed"]:
                    assert self.tables.pop(table_id, None) is not None, (
                        "removed a table it never had"
                    )
            if self.tables == before:
                self.repeats.append(message)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


async def churn(host, table_id: int, seconds: float) -> Raw:
    """A raw connection joins `table_id` as a watcher and leaves again, as fast as the host's
    message rate allows, for `seconds`; it ends watching (so the churn surely shows) and is
    returned, for the test to close."""
    churner = await hello(host, "Churner")
    began = time.monotonic()
    sent = 0
    while time.monotonic() - began < seconds:
        kind = "leave" if sent % 2 else "join_table"
        churner.send({"type": kind, "table": table_id, "spectator": True})
        sent += 1
        # Just under the sustained rate, so no message is dropped for pace.
        await asyncio.sleep(
            max(0.0, began + sent / (limits.RATE_PER_SECOND - 2) - time.monotonic())
        )
    if sent % 2 == 0:
        churner.send({"type": "join_table", "table": table_id, "spectator": True})
    return churner


async def churned_then_gone(host, listener: Listener, table_id: int) -> tuple[float, float]:
    """Churn at `table_id` while `listener` listens, until the listener has seen the churner
    watching and then gone; returns when the churn began and when the listener saw it end."""
    began = time.monotonic()
    churner = await churn(host, table_id, CHURN_S)
    await wait_until(lambda: listener.tables[table_id]["spectators"] == 1)
    churner.close()
    await wait_until(lambda: listener.tables[table_id]["spectators"] == 0)
    return began, time.monotonic()


async def fresh_list(host) -> dict[int, dict]:
    asker = await hello(host, "Asker")
    asker.send({"type": "list_tables", "id": 3})
    answer = await asker.recv_type("tables")
    asker.close()
    return {entry["id"]: entry for entry in answer["tables"]}


async def test_under_churn_a_listener_gets_a_few_pushes_a_second_each_only_the_change(tmp_path):
    async with running_host(tmp_path) as host:
        owners = await open_tables(host, TABLES)
        listener = Listener(await hello(host, "Lobby"))
        listed = await listener.ask()
        assert len(listed) == TABLES
        churned = listed[5]["id"]
        began, ended = await churned_then_gone(host, listener, churned)
        pushes = [message for at, message in listener.pushes if at >= began]
        # At most two pushes a second, over the whole time the host could push.
        assert len(pushes) <= (ended - began) * PER_SECOND + 1, (
            f"{len(pushes)} pushes in {ended - began:.1f} s"
        )
        assert pushes, "the churn was never shown"
        for message in pushes:
            assert message["type"] == "tables_changed", "a whole list pushed, not the change"
            assert [entry["id"] for entry in message["changed"]] == [churned]
            assert message["removed"] == []
        assert listener.repeats == [], "pushed something the listener already had"
        assert listener.tables == await fresh_list(host)
        await listener.stop()
        for owner in owners:
            owner.close()


async def test_a_table_opened_and_closed_is_pushed_as_added_and_removed(tmp_path):
    async with running_host(tmp_path) as host:
        owners = await open_tables(host, 3)
        listener = Listener(await hello(host, "Lobby"))
        await listener.ask()
        newcomer = await hello(host, "Newcomer")
        newcomer.send({"type": "create_table", "ruleset": "race", "id": 1})
        await newcomer.recv_type("ok")
        await wait_until(lambda: len(listener.tables) == 4)
        added = listener.pushes[-1][1]
        assert added["type"] == "tables_changed" and added["removed"] == []
        assert [entry["ruleset"] for entry in added["changed"]] == ["race"]
        assert added["changed"][0]["seats"] == ["Newcomer"]
        # Listed in the host's order: the new table last, as a fresh answer has it.
        assert list(listener.tables) == list(await fresh_list(host))
        newcomer.send({"type": "leave", "id": 2})  # its last human leaves: the table closes
        await wait_until(lambda: len(listener.tables) == 3)
        removed = listener.pushes[-1][1]
        assert removed["changed"] == [] and removed["removed"] == [added["changed"][0]["id"]]
        assert listener.tables == await fresh_list(host)
        assert listener.repeats == []
        await listener.stop()
        for raw in [*owners, newcomer]:
            raw.close()


async def test_a_listener_that_asked_the_old_way_gets_whole_lists_as_rarely(tmp_path):
    async with running_host(tmp_path) as host:
        owners = await open_tables(host, TABLES)
        listener = Listener(await hello(host, "Old lobby"))
        listed = await listener.ask(changes=False)
        churned = listed[2]["id"]
        began, ended = await churned_then_gone(host, listener, churned)
        pushes = [message for at, message in listener.pushes if at >= began]
        assert pushes and len(pushes) <= (ended - began) * PER_SECOND + 1
        assert all(
            message["type"] == "tables" and len(message["tables"]) == TABLES for message in pushes
        )
        assert listener.repeats == [], "the same list pushed twice"
        await listener.stop()
        for owner in owners:
            owner.close()
