"""kismet-join keeps its rejoin token between runs: a client process that dies (a closed
ssh session) and is started again takes back its seat."""

import pytest

from kismet_tui.net import Client
from kismet_tui.saved_seats import connect_keeping_seat, load_token, save_token
from tests.netutil import connected, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


def test_tokens_are_kept_per_address_and_name_privately(tmp_path):
    path = tmp_path / "state" / "tokens.json"
    assert load_token("h:1", "Ana", path) is None
    save_token("h:1", "Ana", "tok-ana", path)
    save_token("h:1", "Bo", "tok-bo", path)
    save_token("h:2", "Ana", "tok-ana-2", path)
    assert load_token("h:1", "Ana", path) == "tok-ana"
    assert load_token("h:1", "Bo", path) == "tok-bo"
    assert load_token("h:2", "Ana", path) == "tok-ana-2"
    assert path.stat().st_mode & 0o077 == 0, "other users must not read rejoin tokens"
    path.write_text("not json")
    assert load_token("h:1", "Ana", path) is None  # a damaged file is no reason not to play


async def test_a_restarted_client_process_takes_back_its_seat(tmp_path):
    tokens = tmp_path / "tokens.json"
    async with running_host(tmp_path / "host") as host:
        async with connected(host, "Ana") as ana:
            bo = Client(reconnect=False)
            await connect_keeping_seat(bo, "127.0.0.1", host.port, "Bo", path=tokens)
            table = await ana.create_table("dice", {"away_limit_ms": 60000})
            await bo.join_table(table["id"])
            await bo.ready()
            await ana.start()
            seat = bo.seat
            hosted = host.tables[table["id"]]
            await bo.close()  # the process dies: its memory, and the token in it, are gone
            await wait_until(lambda: hosted.game.away[seat])

            again = Client(reconnect=False)
            await connect_keeping_seat(again, "127.0.0.1", host.port, "Bo", path=tokens)
            await wait_until(lambda: again.game is not None and not hosted.game.away[seat])
            assert again.seat == seat
            assert again.game.digest() == hosted.game.digest()

            # --fresh: someone new, who does not take the seat.
            stranger = Client(reconnect=False)
            await connect_keeping_seat(stranger, "127.0.0.1", host.port, "Bo", fresh=True,
                                       path=tokens)
            assert stranger.token != again.token and stranger.seat is None
            await stranger.close()
            await again.close()
