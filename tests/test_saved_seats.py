"""kismet-join keeps its rejoin token between runs: a client process that dies (a closed
ssh session) and is started again takes back its seat."""

import asyncssh
import pytest

from kismet_tui.net import Client, RequestError
from kismet_tui.saved_seats import Damaged, connect_keeping_seat, load_token, save_token
from server.doors.seat_files import held_tokens
from server.doors.ssh import key_proof
from tests.netutil import connected, running_host, wait_until
from tests.sshutil import have_the_code, open_solo_dice, ssh_host, ssh_login

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


@pytest.mark.parametrize("damage", ["not json", '["a list"]', '{"h:1/Ana": "tok-a'])
def test_a_damaged_file_is_set_aside_said_once_and_saving_works_again(tmp_path, damage):
    path = tmp_path / "tokens.json"
    path.write_text(damage)
    found = load_token("h:1", "Ana", path)
    assert isinstance(found, Damaged)
    aside = tmp_path / "tokens.json.damaged"
    assert found.moved_to == aside and aside.read_text() == damage and not path.exists()
    assert found.words.startswith(f"Your saved seat could not be read ({path} ")
    assert found.words.endswith(f"it is kept as {aside}), so you join as someone new.")
    assert load_token("h:1", "Ana", path) is None  # said once: the file is set aside
    save_token("h:1", "Ana", "tok-new", path)
    assert load_token("h:1", "Ana", path) == "tok-new"


async def seated_then_gone(host, owner, name: str, tokens):
    """`name` joins with its token saved in `tokens`, sits at a dice game `owner` starts,
    and its process dies (its memory, and the token in it, are gone); returns (the host's
    table, the seat left away)."""
    player = Client(reconnect=False)
    await connect_keeping_seat(player, "127.0.0.1", host.port, name, path=tokens)
    table = await owner.create_table("dice", {"away_limit_ms": 60000})
    await player.join_table(table["id"])
    await player.ready()
    await owner.start()
    seat = player.seat
    hosted = host.tables[table["id"]]
    await player.close()
    await wait_until(lambda: hosted.game.away[seat])
    return hosted, seat


async def test_a_client_whose_file_was_damaged_is_told_and_why_its_name_is_refused(tmp_path):
    tokens = tmp_path / "tokens.json"
    async with running_host(tmp_path / "host") as host:
        async with connected(host, "Ana") as ana:
            await seated_then_gone(host, ana, "Bo", tokens)
            tokens.write_bytes(tokens.read_bytes()[:7])  # cut short, as a full disk might
            told = []
            again = Client(reconnect=False)
            with pytest.raises(RequestError) as refused:
                await connect_keeping_seat(
                    again, "127.0.0.1", host.port, "Bo", path=tokens, say=told.append
                )
            [words] = told
            assert words.startswith("Your saved seat could not be read")
            assert refused.value.words == (
                f"{words} Somebody called Bo is already at this host: please pick another name."
            )
            # Playing on under another name saves a good file again.
            await connect_keeping_seat(again, "127.0.0.1", host.port, "Bob", path=tokens)
            assert load_token(f"127.0.0.1:{host.port}", "Bob", tokens) == again.token
            await again.close()


async def test_over_ssh_the_owner_of_a_damaged_seat_file_is_not_told_the_name_is_taken(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with ssh_host(tmp_path) as (host, ssh):
        async with ssh_login(ssh.port, "Ana", key) as term:
            table = await open_solo_dice(term, host)
            term.conn.abort()
        await wait_until(lambda: table.game.away[0], timeout=30)
        seats = ssh.seats_file("Ana", key_proof(key))
        await wait_until(seats.exists)
        seats.write_text("{ damaged")
        async with ssh_login(ssh.port, "Ana", key) as back:
            await back.wait_for_text("Your saved seat as Ana could not be read")
            assert "Somebody called Ana" not in back.text()
        assert seats.with_name(seats.name + ".damaged").read_text() == "{ damaged"


async def test_a_restarted_client_process_takes_back_its_seat(tmp_path):
    tokens = tmp_path / "tokens.json"
    async with running_host(tmp_path / "host") as host:
        async with connected(host, "Ana") as ana:
            hosted, seat = await seated_then_gone(host, ana, "Bo", tokens)

            again = Client(reconnect=False)
            await connect_keeping_seat(again, "127.0.0.1", host.port, "Bo", path=tokens)
            await wait_until(lambda: again.game is not None and not hosted.game.away[seat])
            assert again.seat == seat
            assert again.game.digest() == hosted.game.digest()

            # --fresh: someone new, who neither takes the seat nor the name of its player.
            stranger = Client(reconnect=False)
            with pytest.raises(RequestError) as refused:
                await connect_keeping_seat(
                    stranger, "127.0.0.1", host.port, "Bo", fresh=True, path=tokens
                )
            assert refused.value.code == "name_taken" and stranger.seat is None
            await connect_keeping_seat(
                stranger, "127.0.0.1", host.port, "Bo 2", fresh=True, path=tokens
            )
            assert stranger.token != again.token and stranger.seat is None
            await stranger.close()
            await again.close()


async def test_seat_folders_go_with_the_players_they_belong_to(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with ssh_host(tmp_path) as (host, ssh):
        # A keyless login, in the lobby only: its folder goes soon after it leaves (the host
        # has forgotten the player: nothing to come back to).
        async with ssh_login(ssh.port, "Cy") as cy:
            await have_the_code(cy)  # keyless: the rejoin code stays until enter
            await cy.wait_for_text("Tables")
            folders = tmp_path / "ssh-seats"
            await wait_until(lambda: any(folders.glob("*/rejoin-tokens.json")), timeout=30)
            (cy_folder,) = folders.iterdir()
        await wait_until(lambda: not cy_folder.exists(), timeout=30)
        # A player who drops from a game keeps theirs while the seat is held...
        async with ssh_login(ssh.port, "Ana", key) as ana:
            table = await open_solo_dice(ana, host)
            ana.conn.abort()
        await wait_until(lambda: table.game.away[0], timeout=30)
        digest = ssh.seat_digest("Ana", key_proof(key))
        await wait_until(lambda: not ssh.seats.in_use, timeout=30)
        assert not ssh.seats.prune(digest) and (folders / digest / "rejoin-tokens.json").exists()
        # ...and it goes with the seat (the table closed: the sweep, or this look, removes it).
        host.close_table(table)
        await wait_until(
            lambda: ssh.seats.prune(digest) or not (folders / digest).exists(), timeout=30
        )
        assert not (folders / digest).exists()
        assert held_tokens(host) == set()


async def test_a_browsers_seat_folder_goes_when_it_leaves_holding_nothing(tmp_path):
    from tests.webutil import THIS_BROWSER, sit_down_as, visiting, web_host

    async with web_host(tmp_path) as (host, web):
        async with visiting(web, path=f"/ws/{THIS_BROWSER}") as visitor:
            await sit_down_as(visitor, "Ana")
            await visitor.wait_for_text("Tables")
            await wait_until(
                lambda: any((tmp_path / "web-seats").glob("*/rejoin-tokens.json")), timeout=30
            )
        async with visiting(web) as anonymous:  # no secret: a folder for this visit only
            await sit_down_as(anonymous, "Bo")
            await anonymous.wait_for_text("Tables")
            await wait_until(
                lambda: len(list((tmp_path / "web-seats").glob("*/rejoin-tokens.json"))) >= 1
            )
        await wait_until(lambda: not any((tmp_path / "web-seats").iterdir()), timeout=30)
