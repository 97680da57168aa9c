"""HostIdentity.when_needed: `kismet` reads (or makes) its host key only when something first
needs it, a game's end above all, and the game is signed with that same key (issue 23). The
key a welcome and a log header show is read from the key file's public part, without the
private key (issue 28)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from kismet_tui.bots.runner import BotLoop
from kismet_tui.log_check import check_log
from protocol.gamelog import read_game_log
from protocol.logsign import check_signature
from server.identity import KEY_FILE, HostIdentity, IdentityError
from server.store import GameWriter, StoreError
from tests.netutil import FAST, connected, running_host, wait_until

HEADER = {"ruleset": "dice", "seats": ["Ana"], "options": {}, "t0": 0, "chance": []}


def test_the_key_is_made_when_the_first_game_ends_and_signs_it(tmp_path):
    identity = HostIdentity.when_needed(tmp_path / "state")
    assert not (tmp_path / "state" / KEY_FILE).exists()  # nothing read or made yet
    path = tmp_path / "game.kismet"
    writer = GameWriter(path, HEADER, 1, identity=identity)
    last = {"seq": 1, "t": 100, "seat": 0, "action": {"type": "roll", "hold": []}}
    writer.append(last, end={"result": {"scores": [0]}})
    writer.close()
    log = read_game_log(path)
    assert log.signature is not None and check_signature(log.signature, log.signed_digest) is None
    kept = HostIdentity.load(tmp_path / "state")  # the key it made, kept for the next start
    assert log.signature["key"] == kept.public_key == identity.public_key
    assert identity.fingerprint == kept.fingerprint and identity.path == kept.path


def test_threads_asking_at_once_get_one_key(tmp_path):
    identity = HostIdentity.when_needed(tmp_path)
    seen: list[bytes] = []
    threads = [threading.Thread(target=lambda: seen.append(identity.public_key)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(seen) == 8 and len(set(seen)) == 1
    assert seen[0] == HostIdentity.load(tmp_path).public_key


def test_a_key_file_it_cannot_use_is_said_when_first_used(tmp_path):
    (tmp_path / KEY_FILE).write_bytes(b"not a key")
    identity = HostIdentity.when_needed(tmp_path)  # nothing is read yet
    with pytest.raises(IdentityError, match="is not a usable private key"):
        identity.sign(b"message")
    assert (tmp_path / KEY_FILE).read_bytes() == b"not a key"  # kept: the owner decides


def test_a_game_whose_end_cannot_be_signed_waits_like_a_failed_write(tmp_path):
    """The key is read only at a game's end: an unusable one holds that end as a disk that
    cannot write does (the table pauses, saying why; server/saving.py), and loses nothing."""
    (tmp_path / KEY_FILE).write_bytes(b"not a key")
    path = tmp_path / "game.kismet"
    writer = GameWriter(path, HEADER, 1, identity=HostIdentity.when_needed(tmp_path))
    before = path.read_bytes()
    last = {"seq": 1, "t": 100, "seat": 0, "action": {"type": "roll", "hold": []}}
    with pytest.raises(
        StoreError, match="the host's key cannot sign it .*not a usable private key"
    ):
        writer.append(last, end={"result": {"scores": [0]}})
    assert path.read_bytes() == before  # nothing half-written
    (tmp_path / KEY_FILE).unlink()  # put right: the owner moves the file away
    writer.append(last, end={"result": {"scores": [0]}})  # the retry, as saving.py makes it
    writer.close()
    log = read_game_log(path)
    assert len(log.events) == 1
    assert check_signature(log.signature, log.signed_digest) is None
    assert log.signature["key"] == HostIdentity.load(tmp_path).public_key  # the new key


@pytest.mark.network
@pytest.mark.timeout(120)
async def test_a_host_as_kismet_makes_it_signs_its_first_game_with_the_kept_key(tmp_path):
    keys = tmp_path / "user-state"  # kismet's: the user's state folder, beside its solo games
    async with running_host(tmp_path / "solo", identity=HostIdentity.when_needed(keys)) as host:
        async with connected(host, "Ana") as ana:
            table = await ana.create_table("dice", FAST["dice"], bots=[])
            # A first `kismet` ever: no key to show in the welcome yet, nothing made.
            assert ana.host_key is None and not (keys / KEY_FILE).exists()
            await ana.start()
            player = asyncio.create_task(BotLoop(ana, "greedy", 0.01, rematches=False).run())
            await wait_until(lambda: host.tables[table["id"]].state == "finished", timeout=90)
            player.cancel()
    [path] = (tmp_path / "solo" / "games").glob("*.kismet")
    report = check_log(read_game_log(path), host_key=HostIdentity.load(keys).fingerprint)
    assert report.ok, report.lines
    # The next start shows it in every welcome, read from the file alone.
    async with running_host(tmp_path / "solo", identity=HostIdentity.when_needed(keys)) as host:
        async with connected(host, "Ana") as ana:
            assert ana.host_key == HostIdentity.load(keys).public_key


def test_the_key_shown_is_read_from_the_files_public_part_alone(tmp_path):
    """A returning `kismet` shows its key (welcome, log header) without reading the private
    key: a file whose private part is damaged still shows the public one, and only signing
    says the file cannot be used."""
    made = HostIdentity.load(tmp_path)
    path = tmp_path / KEY_FILE
    text = path.read_text().splitlines()
    import base64

    raw = bytearray(base64.b64decode("".join(text[1:-1])))
    raw[-40:] = bytes(40)  # the private part's end: key bytes, comment and padding
    path.write_text("\n".join([text[0], base64.b64encode(bytes(raw)).decode(), text[-1]]) + "\n")
    identity = HostIdentity.when_needed(tmp_path)
    assert identity.shown_key() == made.public_key
    with pytest.raises(IdentityError):
        identity.sign(b"message")
    assert HostIdentity.when_needed(tmp_path / "none").shown_key() is None  # none made for it
    assert not (tmp_path / "none").exists()
