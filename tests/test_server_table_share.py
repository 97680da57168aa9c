"""A fair share of tables (issue 20 point 2), over real TCP: the attack that filled every
table (open a solo dice game with a 24 h away limit, start it, leave, again) is bounded: a
player owns at most 3 open tables, the games they left close when the away limit passes
(also after a restart), and a game with no other human plays with an hour's at most."""

import pytest

from kismet_tui.net import Client
from kismet_tui.net.client import RequestError
from tests.netutil import connected, host_process, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]

DAY_MS = 86_400_000
FULL_WORDS = (
    "You have 3 open tables on this host, the most one player may have. Sit at one "
    "of them or at another player's table; a table closes when its players have "
    "left it (a running game once its away limit has passed)."
)


async def open_start_leave(client: Client, away_limit_ms: int = DAY_MS) -> dict:
    """One round of the attack; returns the header of the game left running."""
    await client.create_table("dice", {"away_limit_ms": away_limit_ms})
    await client.start()
    await wait_until(lambda: client.header is not None)
    header = client.header
    await client.leave()
    return header


async def test_one_player_cannot_fill_the_host_with_games_they_left(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Mallory", reconnect=False) as mallory:
            headers = []
            for _ in range(3):
                headers.append(await open_start_leave(mallory))
            assert len(host.tables) == 3
            # Alone at the table: the game's away limit is an hour, not the day asked for.
            assert {h["options"]["away_limit_ms"] for h in headers} == {3_600_000}
            with pytest.raises(RequestError) as refused:
                await mallory.create_table("dice", {"away_limit_ms": DAY_MS})
            assert refused.value.code == "full" and str(refused.value) == FULL_WORDS
            assert len(host.tables) == 3
        # Anyone else may still open a table.
        async with connected(host, "Ana", reconnect=False) as ana:
            await ana.create_table("dice")
            assert len(host.tables) == 4


@pytest.mark.parametrize("asked_ms, said", [(DAY_MS, "24 h"), (5_400_000, "1.5 h")])
async def test_the_alone_notice_says_the_away_limit_was_shortened(tmp_path, asked_ms, said):
    import asyncio

    async with running_host(tmp_path) as host:
        async with connected(host, "Ana", reconnect=False) as ana:
            seen = []

            async def collect():
                async for message in ana.messages():
                    if message["type"] == "notice":
                        seen.append(message)
                        return

            listener = asyncio.create_task(collect())
            await ana.create_table("dice", {"away_limit_ms": asked_ms})
            await ana.start()
            await asyncio.wait_for(listener, 10)
            assert seen[0]["code"] == "away_limit"
            assert seen[0]["words"] == (
                "With no other player at the table, this game's away "
                f"limit is an hour, not {said}: the host keeps no table "
                "for longer when nobody might come back to it."
            )
            assert host.tables[ana.table["id"]].header["options"]["away_limit_ms"] == 3_600_000
            assert (
                host.tables[ana.table["id"]].options["away_limit_ms"] == asked_ms
            )  # the table's own


async def test_two_humans_keep_the_away_limit_they_asked_for(tmp_path):
    async with running_host(tmp_path) as host:
        async with (
            connected(host, "Ana", reconnect=False) as ana,
            connected(host, "Bo", reconnect=False) as bo,
        ):
            table = await ana.create_table("dice", {"away_limit_ms": DAY_MS})
            await bo.join_table(table["id"])
            await bo.ready()
            await ana.start()
            await wait_until(lambda: ana.header is not None)
            assert ana.header["options"]["away_limit_ms"] == DAY_MS


async def test_fresh_tokens_from_one_capped_address_are_one_player(tmp_path):
    async with running_host(tmp_path, cap_loopback=True) as host:
        for n in range(3):
            async with connected(host, f"Mallory {n}", reconnect=False) as mallory:
                await open_start_leave(mallory)
        async with connected(host, "Mallory 4", reconnect=False) as mallory:
            with pytest.raises(RequestError) as refused:
                await mallory.create_table("dice")
            assert refused.value.code == "full"
        assert len(host.tables) == 3


async def test_a_game_everyone_left_closes_when_its_away_limit_passes(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana", reconnect=False) as ana:
            await ana.create_table("dice", {"away_limit_ms": 500})
            table = host.tables[ana.table["id"]]
            await ana.start()
            await wait_until(lambda: ana.header is not None)
            await ana.leave()
            await wait_until(lambda: not host.tables)
            # Closed at its away limit, not by the game ending (the host plays the away
            # player's turns at the same limit: 15 of them would take 7.5 s).
            assert table.state == "closed" and not table.running.finished
            assert await ana.list_tables() == []
            # A table that closed frees the share again, and forgets the player's old seat.
            for _ in range(3):
                await open_start_leave(ana, away_limit_ms=300)
            await wait_until(lambda: not host.tables)
            assert list(host.players) == [ana.token]


async def test_a_player_who_dropped_is_told_their_game_closed(tmp_path):
    from tests.hostutil import hello_with

    async with running_host(tmp_path) as host:
        async with connected(host, "Ana", reconnect=False) as ana:
            await ana.create_table("dice", {"away_limit_ms": 500})
            table_id = ana.table["id"]
            await ana.start()
            await wait_until(lambda: ana.header is not None)
            token = ana.token
        await wait_until(lambda: not host.tables)  # dropped, then closed at its limit
        assert token not in host.players
        raw, welcome = await hello_with(host.port, token)
        assert welcome["table"] is None
        told = await raw.recv_type("error")
        assert told["code"] == "no_table"
        assert told["words"] == (
            f"Your table {table_id} closed while everyone was away from it: "
            f"nobody came back within its away limit (0.5 s). Please join "
            f"or open another."
        )
        raw.close()


async def test_a_player_back_in_time_stops_the_closing_clock(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana", reconnect=False) as ana:
            await ana.create_table("dice", {"away_limit_ms": 60_000})
            await ana.start()
            await wait_until(lambda: ana.header is not None)
            table = host.tables[ana.table["id"]]
            await ana.leave()
            assert table.abandoned is not None  # nobody human is left: the clock runs
            await ana.join_table(table.id)
            assert table.abandoned is None and host.tables[table.id] is table


def test_resumed_games_nobody_returns_to_close_after_the_restart(tmp_path):
    import asyncio

    async def leave_two_games(port):
        async with connected(port, "Mallory", reconnect=False) as mallory:
            await open_start_leave(mallory, away_limit_ms=5000)
            await mallory.create_table("dice", {"away_limit_ms": DAY_MS})
            await mallory.start()
            await wait_until(lambda: mallory.header is not None)
            assert len(await mallory.list_tables()) == 2  # both still open when the host dies
            return mallory.token

    async def after_restart(port, token):
        async with connected(port, "Ana", reconnect=False) as ana:
            # The 5 s game closes 5 s after the resume; the other waits for Mallory.
            await wait_until_async(lambda: ana.list_tables(), lambda tables: len(tables) == 1)
        async with connected(port, "Mallory", token=token, reconnect=False) as mallory:
            await wait_until(lambda: mallory.table is not None)  # her seat, given back
            await mallory.leave()
            # The resumed table still counts against her: two more and she has her share.
            for _ in range(2):
                await open_start_leave(mallory, away_limit_ms=60_000)
            with pytest.raises(RequestError) as refused:
                await mallory.create_table("dice")
            assert refused.value.code == "full"

    with host_process(tmp_path, bots=0) as proc:
        token = asyncio.run(leave_two_games(proc.port))
        proc.kill()
        proc.start()
        asyncio.run(after_restart(proc.port, token))


async def wait_until_async(ask, good, timeout=30.0):
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not good(await ask()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_door_players_key_and_real_address_are_who_they_are(tmp_path):
    from server.doors.door_pass import DoorPass

    async with running_host(tmp_path) as host:
        # Two ssh sessions of one key (as server/doors/ssh.py's passes tell the host at hello),
        # each with a fresh token: one player.
        clients = []
        for n in range(2):
            client = Client(reconnect=False)
            await client.connect("127.0.0.1", host.port, f"Key {n}")
            conn = next(c for c in host.connections if c.player and c.player.token == client.token)
            conn.door = DoorPass("ssh", "192.0.2.7", "ssh-key SHA256:same")
            clients.append(client)
        for _ in range(2):
            await open_start_leave(clients[0], away_limit_ms=60_000)
        await open_start_leave(clients[1], away_limit_ms=60_000)
        with pytest.raises(RequestError) as refused:
            await clients[1].create_table("dice")
        assert refused.value.code == "full"
        # Another key from that address is the same player too: the address is counted.
        other = Client(reconnect=False)
        await other.connect("127.0.0.1", host.port, "Other key")
        conn = next(c for c in host.connections if c.player and c.player.token == other.token)
        conn.door = DoorPass("ssh", "192.0.2.7", "ssh-key SHA256:other")
        with pytest.raises(RequestError):
            await other.create_table("dice")
        # From another address, another key opens a table.
        conn.door = DoorPass("ssh", "198.51.100.9", "ssh-key SHA256:other")
        await other.create_table("dice")
        for client in (*clients, other):
            await client.close()


def test_the_cli_default_is_the_hosts():
    from server.cli import build_parser
    from server.table_share import DEFAULT_TABLES_PER_PLAYER

    assert build_parser().parse_args([]).tables_per_player == DEFAULT_TABLES_PER_PLAYER == 3
