"""Lobby rules over TCP: seat order and reordering, leaving, the hello timeout, a replica
that misses an event resyncing."""

import asyncio

import pytest

from kismet_tui.net import RequestError
from protocol import limits
from tests.netutil import connected, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def test_seats_follow_join_order_and_the_owner_may_reorder(tmp_path):
    async with running_host(tmp_path) as host:
        async with (
            connected(host, "Ana") as ana,
            connected(host, "Bo") as bo,
            connected(host, "Cy") as cy,
        ):
            table = await ana.create_table("race")
            await bo.join_table(table["id"])
            await cy.join_table(table["id"])
            assert [s["name"] for s in ana.table["seats"]] == ["Ana", "Bo", "Cy"]
            from kismet_tui.net import RequestError

            with pytest.raises(RequestError) as err:
                await bo.reorder([2, 1, 0])
            assert err.value.words == "Only the table's owner can change the seat order."
            with pytest.raises(RequestError) as err:
                await ana.reorder([0, 0, 1])
            assert err.value.code == "bad_message"
            await ana.reorder([2, 0, 1])
            await wait_until(lambda: cy.seat == 0 and bo.seat == 2)
            assert [s["name"] for s in bo.table["seats"]] == ["Cy", "Ana", "Bo"]
            await bo.ready()
            await cy.ready()
            await ana.start()
            await wait_until(lambda: bo.header is not None)
            assert bo.header["seats"] == ["Cy", "Ana", "Bo"]
            # Protocol version 2: the commit shown before anyone readied, each seat's
            # entropy (the owner's came with start), and never the seed.
            assert "seed" not in bo.header and "server_seed" not in bo.header
            assert bo.header["commit"] == table["commit"] and len(table["commit"]) == 64
            assert all(isinstance(e, bytes) and len(e) == 16 for e in bo.header["entropy"])
            # A late joiner can only watch while the game runs.
            async with connected(host, "Di") as di:
                with pytest.raises(RequestError) as err:
                    await di.join_table(table["id"])
                assert err.value.code == "playing"
                await di.join_table(table["id"], spectator=True)
                assert di.seat is None and di.game is not None


async def test_the_owner_leaving_the_lobby_hands_the_table_on(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            table = await ana.create_table("dice")
            await bo.join_table(table["id"])
            await ana.leave()
            await wait_until(lambda: len(bo.table["seats"]) == 1)
            assert bo.table["owner"] == bo.client_id and bo.seat == 0
            await bo.leave()
            assert await ana.list_tables() == []


async def test_a_silent_connection_is_closed(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "HELLO_TIMEOUT_S", 0.5)
    async with running_host(tmp_path) as host:
        reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
        data = await asyncio.wait_for(reader.read(), 5)  # until the host closes it
        assert b"hello_first" in data
        writer.close()


async def test_a_missed_event_makes_the_client_resync(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Solo") as solo:
            await solo.create_table("dice")
            await solo.start()
            await wait_until(lambda: solo.game is not None)
            hosted = host.tables[solo.table["id"]]
            await solo.act({"type": "roll", "hold": []})
            # The host stamps an event this client never receives, then another it does.
            player = host.players[solo.token]
            player.table = None  # for one event, the host does not count Solo as present
            hosted.stamp(0, {"type": "roll", "hold": [0]})
            player.table = hosted
            hosted.stamp(0, {"type": "roll", "hold": [0, 1]})
            await wait_until(lambda: len(solo.events) == 3)
            assert [e["seq"] for e in solo.events] == [1, 2, 3]
            assert solo.game.digest() == hosted.game.digest()


@pytest.mark.timeout(120)
async def test_a_start_waits_for_the_bots_to_sit_down_so_nobody_begins_away(tmp_path):
    # Quick play creates a table with bots and starts at once, before the bot clients have
    # connected: the game must open with the bots seated, not "away" then "back".
    from kismet_tui.bots.runner import bot_factory

    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            table = await ana.create_table("dice", {}, bots=["greedy", "greedy"])
            await ana.start()  # at once: the bots are still connecting
            await wait_until(
                lambda: (
                    ana.game is not None and all(seat["connected"] for seat in ana.table["seats"])
                )
            )
            await ana.list_tables()  # a round trip: whatever the start and the bots' hellos
            # stamped has been stamped before the host answers this
            hosted = host.tables[table["id"]]
            kinds = [event["action"]["type"] for event in hosted.events]
            assert "away" not in kinds and "back" not in kinds
            assert hosted.game.away == [False, False, False]
            # A second start while the first is pending, or once running, is refused.
            with pytest.raises(RequestError):
                await ana.start()
