"""A verified game is a genuine one (issue 28, attack 9).

`kismet-replay --verify` passed forgeries: a log with its signature cut off ("Not signed
(older host)", exit 0) even with two grabs swapped or a stamp moved, or with the end record
still carrying what only signing hosts write; a log signed again by another key; a whole game
made up from a chosen seed and signed by a fresh key. Here a real `kismet-host` process on
127.0.0.1 is joined the way `kismet-join` joins (its app and join_by_name), which remembers
the host's key from the welcome (kismet_tui/known_hosts.py); a race game is then played at
that host, and its log verifies as the host's while every forgery of it fails in its words.
"""

from __future__ import annotations

import json

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.cli import join_by_name
from kismet_tui.known_hosts import THIS_COMPUTER, default_path, known_keys, remember
from kismet_tui.net import Client
from protocol.gamelog import record_bytes
from protocol.logsign import fingerprint
from server.cli import default_state_dir
from server.identity import HostIdentity
from tests.logutil import older_log, play_a_game
from tests.netutil import host_process, wait_until
from tests.uiutil import wait_for
from tests.verifyutil import a_grab_pair, end_of, events_of, forge, records, run_verify, write

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]

CUT = (
    "Not signed, but its header says protocol version 3: hosts since protocol version 3 "
    "sign every game they finish, so its signature was cut off and nothing shows who wrote it."
)


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path, monkeypatch):
    """This test's player has met no host yet: a data folder of its own (known-hosts.json)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


async def join_like_kismet_join(port: int, tmp_path) -> tuple[Client, list[str]]:
    """Join the host at 127.0.0.1:`port` as `kismet-join --name Ana` does (its app and its
    join_by_name); returns the client (closed) and the notices the app showed."""
    client = Client(reconnect=False)
    app = KismetApp(
        client,
        address=f"127.0.0.1:{port}",
        on_quit=client.close,
        connect=lambda: join_by_name(
            app,
            client,
            "127.0.0.1",
            port,
            "Ana",
            ask=False,
            fresh=True,
            refused=[],
            seats=tmp_path / "seats.json",
        ),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: client.state == "connected", what="the connection")
        await pilot.pause(0.1)
        shown = list(app.notices_shown)
        await client.close()
    return client, shown


async def play_at_a_joined_host(tmp_path, ruleset: str, bots: tuple[str, ...]):
    """(the log of a game played at a real host the player joined, the host's key, its port)."""
    state = tmp_path / "host"
    with host_process(state) as proc:
        client, shown = await join_like_kismet_join(proc.port, tmp_path)
        assert client.host_key is not None and not shown
        await play_a_game(proc.port, ruleset, bots)
        key = HostIdentity.load(state).public_key
        [path] = (state / "games").glob("*.kismet")
        await wait_until(lambda: any(r["kind"] == "signature" for r in records(path)))
    assert client.host_key == key  # what the welcome showed is the key that signs
    return path, key, proc.port


@pytest.fixture
async def played(tmp_path):
    """A race game with two grabs to swap (one round where two seats grabbed, one after the
    other: nearly every game; another is played when not) at a host the player joined."""
    for attempt in range(3):
        path, key, port = await play_at_a_joined_host(
            tmp_path / f"try{attempt}", "race", ("greedy", "greedy")
        )
        try:
            a_grab_pair(records(path))
        except AssertionError:
            continue
        return path, key, port
    raise AssertionError("three race games without two grabs in one round")


async def test_a_game_at_a_host_joined_verifies_as_the_host_you_played_at(played, capsys):
    path, key, port = played
    saved = json.loads(default_path().read_text())
    assert saved["hosts"][f"127.0.0.1:{port}"] == {"key": key.hex(), "earlier": []}
    assert records(path)[0]["host_key"] == key  # the header names the key that signs
    code, lines = run_verify(path, capsys)
    assert code == 0, lines
    assert lines[0] == (
        f"Signed by the host you played at ({fingerprint(key)}), known here as 127.0.0.1:{port}."
    )
    assert len(lines) == 4 and lines[-1].startswith("The end record matches the replay"), lines


def without_signature(recs):
    return [r for r in recs if r["kind"] != "signature"]


async def test_a_cut_signature_fails(played, tmp_path, capsys):
    path, _, _ = played
    code, lines = run_verify(
        write(tmp_path / "cut.kismet", without_signature(records(path))), capsys
    )
    assert (code, lines[0]) == (1, CUT), lines


async def test_a_cut_signature_with_two_grabs_swapped_fails(played, tmp_path, capsys):
    path, _, _ = played
    recs = without_signature(records(path))
    first, second = a_grab_pair(recs)
    first["seat"], second["seat"] = second["seat"], first["seat"]
    first["action"], second["action"] = second["action"], first["action"]
    code, lines = run_verify(write(tmp_path / "swapped.kismet", recs), capsys)
    assert (code, lines[0]) == (1, CUT), lines


async def test_a_cut_signature_with_a_stamp_moved_fails(played, tmp_path, capsys):
    path, _, _ = played
    recs = without_signature(records(path))
    grab = next(r for r in events_of(recs) if r["action"]["type"] == "grab")
    grab["t"] += 1
    code, lines = run_verify(write(tmp_path / "moved.kismet", recs), capsys)
    assert (code, lines[0]) == (1, CUT), lines


async def test_a_cut_signature_fails_by_the_end_record_alone(played, tmp_path, capsys):
    """The header's version and key taken out too: the end record's digest and marks,
    which only signing hosts write, still tell."""
    path, _, _ = played
    recs = without_signature(records(path))
    del recs[0]["header"]["version"], recs[0]["host_key"]
    code, lines = run_verify(write(tmp_path / "bare.kismet", recs), capsys)
    assert code == 1
    assert lines[0] == (
        "Not signed, but its end record has the digest and marks only signing "
        "hosts write: hosts since protocol version 3 sign every game they "
        "finish, so its signature was cut off and nothing shows who wrote it."
    ), lines


def never_seen(key: bytes) -> str:
    fp = fingerprint(key)
    return (
        f"Signed by a key you have never seen ({fp}): no host you joined from this computer "
        f"showed it. If you know it is the host's (kismet-host prints its key at start), "
        f"name it: --host-key {fp}"
    )


async def test_a_log_signed_again_by_another_key_fails(played, tmp_path, capsys):
    path, key, _ = played
    forger = HostIdentity.load(tmp_path / "forger")
    recs = without_signature(records(path))
    # All of it signed again, its header naming the forger's key as a host's would.
    from server.store import GameWriter

    events = [{k: r[k] for k in r if k != "kind"} for r in events_of(recs)]
    end = {k: v for k, v in end_of(recs).items() if k not in ("kind", "marks")}
    resigned = tmp_path / "resigned.kismet"
    writer = GameWriter(resigned, recs[0]["header"], recs[0]["table"], events[:-1], identity=forger)
    writer.append(events[-1], end=end)
    writer.close()
    assert records(resigned)[0]["host_key"] == forger.public_key
    code, lines = run_verify(resigned, capsys)
    assert (code, lines[0]) == (1, never_seen(forger.public_key)), lines
    # Naming the key is the player's word that it is the host's.
    code, lines = run_verify(resigned, capsys, "--host-key", forger.fingerprint)
    assert (code, lines[0]) == (0, f"Signed by host {forger.fingerprint}, the key you named."), (
        lines
    )
    # Signed again with the host's own header kept: the header names another key.
    kept = write(tmp_path / "kept-header.kismet", recs)
    data = kept.read_bytes()
    import hashlib

    from protocol.logsign import signature_record, signed_message

    signature = forger.sign(signed_message(hashlib.sha256(data).digest()))
    kept.write_bytes(data + record_bytes(signature_record(forger.public_key, signature)))
    code, lines = run_verify(kept, capsys)
    assert code == 1
    assert lines[0] == (
        f"Signed by {forger.fingerprint}, but the log's header names the host's "
        f"key as {fingerprint(key)}: it was signed again by another key."
    ), lines


async def test_a_game_made_up_from_a_chosen_seed_fails(tmp_path, capsys):
    # A game alone, so the same moves stay legal with the dice of another seed.
    path, _, _ = await play_at_a_joined_host(tmp_path, "dice", ())
    forger = HostIdentity.load(tmp_path / "fresh")
    forged = forge(records(path), forger, tmp_path / "made-up.kismet")
    code, lines = run_verify(forged, capsys)
    assert (code, lines[0]) == (1, never_seen(forger.public_key)), lines
    # Every value fits the commit it chose: only the key tells.
    assert lines[1:3] == [lines[1], "Every die and card came from the seed committed at the start."]


async def test_a_log_from_before_signing_says_it_is_unsigned(tmp_path, capsys):
    from tests.verifyutil import play

    path, _ = await play(tmp_path / "solo-host", "dice", [])
    older = older_log(records(path), tmp_path / "older.kismet")
    code, lines = run_verify(older, capsys)
    assert code == 2, lines  # nothing differs, but who wrote it cannot be checked
    assert lines[0] == (
        "Not signed (older host, before protocol version 3): nothing shows who "
        "wrote it; judged on the rest."
    )
    assert lines[2] == "Every die and card came from the seed committed at the start.", lines


def test_kismets_own_host_key_counts_as_known(tmp_path):
    """The key `kismet` signs with (the user's state folder's) is this computer's, met or not."""
    own = HostIdentity.load(default_state_dir())
    assert THIS_COMPUTER in known_keys()[own.public_key]


def test_a_changed_key_is_remembered_and_the_old_one_kept(tmp_path):
    path = tmp_path / "known.json"
    first, second = b"\x01" * 32, b"\x02" * 32
    assert remember("example:7717", first, path) is None  # the first time: quiet
    assert remember("example:7717", first, path) is None
    words = remember("example:7717", second, path)
    assert words == (
        f"The host at example:7717 shows another key than before: now "
        f"{fingerprint(second)}, before {fingerprint(first)}. If its owner made a new "
        f"key, all is well; if not, another computer may be answering at that "
        f"address. Games it signs from now on show the new key."
    )
    found = known_keys(path)
    assert found[first] == found[second] == ["example:7717"]  # old games still verify


async def test_a_host_with_a_new_key_is_told_but_play_goes_on(tmp_path):
    with host_process(tmp_path / "first") as proc:
        port = proc.port
        await join_like_kismet_join(port, tmp_path)
    with host_process(tmp_path / "second", port=port):
        client, shown = await join_like_kismet_join(port, tmp_path)
    new = HostIdentity.load(tmp_path / "second").fingerprint
    old = HostIdentity.load(tmp_path / "first").fingerprint
    assert client.state == "closed"  # (it was connected, then closed by the test)
    assert [n for n in shown if "another key" in n] == [
        f"The host at 127.0.0.1:{port} shows another key than before: now {new}, before {old}. "
        f"If its owner made a new key, all is well; if not, another computer may be answering "
        f"at that address. Games it signs from now on show the new key."
    ], shown
