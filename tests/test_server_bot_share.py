"""Bots are shared fairly (issue 28, attack 6), over real TCP with real bot clients: one
player holds at most their share of bots (the attack opened bot games with a long away
limit, left them, and opened more, until the host's 32 bots were gone); a game left to its
bots closes within a minute and frees them; and the host's own bots count against no
address, so with --cap-loopback a second 7-bot table is not starved of connections."""

import pytest

from kismet_tui.bots.runner import bot_factory
from kismet_tui.net.client import RequestError
from server import table_share
from tests.netutil import connected, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]

DAY_MS = 86_400_000


def all_bots_playing(client) -> bool:
    table = client.table
    return (
        table is not None
        and table["state"] == "playing"
        and all(s["connected"] for s in table["seats"] if s["bot"])
    )


async def test_one_player_holds_at_most_their_share_of_bots_and_a_left_game_frees_them(
    tmp_path, monkeypatch
):
    from protocol import leavers

    monkeypatch.setattr(table_share, "BOTS_ALONE_CLOSE_MS", 1500)  # (a minute on a real host)
    monkeypatch.setattr(leavers, "BOTS_ALONE_CLOSE_MS", 1500)
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01), max_bots=32) as host:
        async with connected(host, "Mallory", reconnect=False) as mallory:
            await mallory.create_table("dice", {"away_limit_ms": DAY_MS}, bots=7)
            await mallory.start()
            await wait_until(lambda: all_bots_playing(mallory))
            left = mallory.table["id"]
            await mallory.leave()
            # A second table of bots would pass Mallory's share: refused, in words.
            with pytest.raises(RequestError) as refused:
                await mallory.create_table("dice", {"away_limit_ms": DAY_MS}, bots=7)
            assert refused.value.code == "full"
            assert str(refused.value) == (
                "A player may have 7 bots at once on this host, and your tables have 7 playing "
                "already. The bots of a game you left go home 1.5 s after the last player did."
            )
            # Anyone else gets theirs.
            async with connected(host, "Ana", reconnect=False) as ana:
                await ana.create_table("dice", bots=1)
                await ana.leave()
            # The game Mallory left to its bots closes (its day-long away limit or not), and
            # its bots go home: Mallory may have bots again.
            await wait_until(lambda: left not in host.tables)
            await mallory.create_table("dice", bots=7)
            await wait_until(
                lambda: all(s["connected"] for s in mallory.table["seats"] if s["bot"])
            )


async def test_the_hosts_own_bots_count_against_no_address(tmp_path):
    # (Ana and Bo are one player by their capped address: the bots' share is not tested here.)
    async with running_host(
        tmp_path,
        bot_factory=bot_factory(speed=0.01),
        cap_loopback=True,
        max_per_address=8,
        bots_per_player=None,
    ) as host:
        async with connected(host, "Ana", reconnect=False) as ana:
            await ana.create_table("dice", bots=7)
            await ana.start()
            await wait_until(lambda: all_bots_playing(ana))
            # Before, Ana and her 7 bots were loopback's 8 connections: Bo could not come in
            # (and a second owner's bots were refused at the door, their seats never played).
            async with connected(host, "Bo", reconnect=False) as bo:
                await bo.create_table("dice", bots=7)
                await bo.start()
                await wait_until(lambda: all_bots_playing(bo))
                assert host.gate.per_address.counts == {"127.0.0.1": 2}
                assert not host.gate.own_peers  # every bot's connection came in and was known
