"""One name, one person: names that look alike are one name at a host (protocol.text.name_key),
and the bots' form is kept for bots. Over real TCP against an in-process host."""

from __future__ import annotations

import pytest

from kismet_tui.net import RequestError
from protocol.text import name_key
from tests.netutil import connected, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(60)]


@pytest.mark.parametrize(
    "one, other",
    [
        ("nora", "NORA"),
        ("carol", "\u0441arol"),  # a Cyrillic es
        ("nora", "\uff4e\uff4f\uff52\uff41"),  # fullwidth
        ("nora", "n0ra"),
        ("mia", "rnia"),  # a zero for an o; r and n for an m
        ("Ana", "\u0410na"),  # a Cyrillic capital A
    ],
)
def test_look_alike_names_have_one_key(one, other):
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize("one, other", [("nora", "nara"), ("carol", "carl"), ("Bo", "Bob")])
def test_different_names_have_different_keys(one, other):
    assert name_key(one) != name_key(other)


@pytest.mark.parametrize(
    "taken",
    [
        "nora",
        "NORA",
        "Nora",
        "n\u043er\u0430",  # Cyrillic o and a
        "\uff4e\uff4f\uff52\uff41",
    ],
)  # fullwidth
async def test_a_name_that_looks_like_a_connected_players_is_refused_in_words(tmp_path, taken):
    async with running_host(tmp_path) as host:
        async with connected(host, "nora"):
            with pytest.raises(RequestError) as refused:
                async with connected(host, taken):
                    pass
            assert refused.value.code == "name_taken"
            assert refused.value.words == (
                "Somebody called nora is already at this host: please pick another name."
            )
            # Nobody was left behind by the refusal, and another name gets in.
            assert [p.name for p in host.players.values()] == ["nora"]
            async with connected(host, "zoe") as zoe:
                assert zoe.name == "zoe"


async def test_the_cyrillic_look_alike_of_a_seated_player_away_is_refused(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "carol") as carol, connected(host, "Bo") as bo:
            table = await carol.create_table("dice", {"away_limit_ms": 60000})
            await bo.join_table(table["id"])
            await bo.ready()
            await carol.start()
            await wait_until(lambda: host.tables[table["id"]].running is not None)
            token = carol.token
        hosted = host.tables[table["id"]]
        await wait_until(lambda: hosted.running.away[0])
        with pytest.raises(RequestError) as refused:
            async with connected(host, "\u0441arol"):
                pass
        assert refused.value.code == "name_taken" and "carol" in refused.value.words
        # The rightful player, with the token, comes back as carol.
        async with connected(host, "carol", token=token) as back:
            assert back.name == "carol" and hosted.seat_of(back.token) == 0
            await wait_until(lambda: not hosted.running.away[0])


async def test_the_same_player_reconnecting_with_its_token_keeps_its_name(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "nora") as first:
            token = first.token
            # A second connection of the same player (another terminal, say) is the same
            # person: it takes the name, and the first connection is replaced.
            async with connected(host, "NORA", token=token) as again:
                assert again.token == token and again.client_id == first.client_id


@pytest.mark.parametrize(
    "name",
    [
        "Bot 1 (easy)",
        "bot 2 (hard)",
        "Bot (easy)",
        "B0t l (easy)",
        "Bot 12",
        "\uff42\uff4f\uff54 3 (medium)",
    ],
)
async def test_names_in_the_bots_form_are_kept_for_bots(tmp_path, name):
    async with running_host(tmp_path) as host:
        with pytest.raises(RequestError) as refused:
            async with connected(host, name):
                pass
        assert refused.value.code == "name_taken"
        assert refused.value.words == (
            f"Names like {name} are kept for the host's bots: please pick another name."
        )
        assert not host.players


@pytest.mark.parametrize("name", ["Bottle", "Robot 1", "Bo", "Botswana (1)"])
async def test_names_merely_starting_like_a_bot_are_fine(tmp_path, name):
    async with running_host(tmp_path) as host:
        async with connected(host, name) as player:
            assert player.name == name


async def test_over_ssh_a_cyrillic_look_alike_is_asked_for_another_name(tmp_path):
    import asyncssh

    from tests.sshutil import ssh_host, ssh_login

    async with ssh_host(tmp_path) as (host, ssh), connected(host, "carol"):
        async with ssh_login(
            ssh.port, "\u0441arol", asyncssh.generate_private_key("ssh-ed25519")
        ) as term:
            # The door's own question, before any app starts.
            await term.wait_for_text("Somebody called \u0441arol is already at this host.")
            await term.wait_for_text("Your name at the table:")
            assert [p.name for p in host.players.values()] == ["carol"]
            term.press(b"Bot 2 (hard)\r")
            await term.wait_for_text("Names like Bot 2 (hard) are kept for the host's bots: please")
            term.press(b"Carla\r")
            await term.wait_for_text("Tables")
