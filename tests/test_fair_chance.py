"""Fair chance (protocol versions 2 and 3): a game over a real host ends verified, and
`kismet-replay --verify` catches a saved game whose chance was changed (a die, the seed, a
missing value), and still verifies a game saved under version 2."""

import asyncio

import pytest

from kismet_tui.cli import replay_main
from kismet_tui.rules import ChanceError, replay
from tests.logutil import play_solo_dice
from tests.netutil import FAST, connected, running_host, wait_until
from tests.verifyutil import records, write

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


def run_verify(path, capsys, *more):
    code = replay_main(["--verify", str(path), *more])
    out = capsys.readouterr()
    return code, (out.out + out.err).strip()


@pytest.fixture
async def honest(tmp_path):
    return await play_solo_dice(tmp_path / "host")


async def test_an_honest_game_is_verified_by_the_client_and_by_kismet_replay(honest, capsys):
    verification, path = honest
    assert verification.ok, verification.words
    from server.identity import HostIdentity

    host_key = HostIdentity.load(path.parent.parent).fingerprint  # the host's state folder
    # This player never joined that host with kismet-join (the test's client remembers no
    # key), so the key is named, as its owner printed it at start.
    code, out = run_verify(path, capsys, "--host-key", host_key)
    assert code == 0
    assert [line.removeprefix(f"{path}: ") for line in out.splitlines()] == [
        f"Signed by host {host_key}, the key you named.",
        "Every event (45) is legal at its stamp, in order, from the seat that may make it.",
        "Every die and card came from the seed committed at the start.",
        f"The end record matches the replay: scores [{verification.game.result()['scores'][0]}], "
        "winners [0].",
    ]


async def test_one_die_changed_fails_naming_the_event(honest, tmp_path, capsys):
    _, path = honest
    recs = records(path)
    event = next(r for r in recs if r["kind"] == "event" and len(r.get("chance", [])) == 5)
    event["chance"][2] = event["chance"][2] % 6 + 1
    bad = tmp_path / "die.kismet"
    write(bad, recs)
    code, out = run_verify(bad, capsys)
    assert code == 1
    assert (
        f"Event {event['seq']} (roll by Ana): the log shows" in out
        and "committed seed gives" in out
    )


async def test_a_wrong_seed_fails_at_the_commit_and_a_forged_commit_at_the_first_draw(
    honest, tmp_path, capsys
):
    _, path = honest
    recs = records(path)
    next(r for r in recs if r["kind"] == "end")["server_seed"] = bytes(32)
    bad = tmp_path / "seed.kismet"
    write(bad, recs)
    code, out = run_verify(bad, capsys)
    assert code == 1 and "not the one committed before the game started" in out
    # A forger who rewrites the commit to fit the new seed is caught at the first roll.
    from kismet_tui.rules.rng import commitment

    recs[0]["header"]["commit"] = commitment(bytes(32))
    write(bad, recs)
    code, out = run_verify(bad, capsys)
    first = next(r for r in recs if r["kind"] == "event" and r.get("chance"))
    assert code == 1 and f"Event {first['seq']} (roll by Ana)" in out


async def test_the_host_writes_version_3_and_a_version_2_log_is_judged_on_the_rest(
    honest, tmp_path, capsys
):
    from tests.rules_util import vector_game

    _, path = honest
    assert records(path)[0]["header"]["version"] == 3
    header, events, end, _ = vector_game(version=2)  # as a version-2 host saved it
    old = tmp_path / "v2.kismet"
    write(
        old,
        [
            {"kind": "header", "header": header, "table": 1},
            *({"kind": "event", **event} for event in events),
            {"kind": "end", **end},
        ],
    )
    code, out = run_verify(old, capsys)
    # Nothing shows who wrote a log from before signing: its chance and moves are checked,
    # and it is not called verified (exit 2: neither genuine nor shown forged).
    assert code == 2, out
    assert "Not signed (older host, before protocol version 3)" in out
    assert "Every die and card came from the seed committed at the start." in out


async def test_a_value_removed_fails_naming_the_event_and_the_replica_refuses_it(
    honest, tmp_path, capsys
):
    _, path = honest
    recs = records(path)
    events = [r for r in recs if r["kind"] == "event"]
    event = [r for r in events if r.get("chance")][3]
    event["chance"].pop()
    bad = tmp_path / "missing.kismet"
    write(bad, recs)
    code, out = run_verify(bad, capsys)
    assert code == 1 and f"Event {event['seq']}" in out and "a value is missing" in out
    # A client replaying the same log refuses that event in its own words.
    header = recs[0]["header"]
    with pytest.raises(ChanceError) as err:
        replay(header, [{k: r[k] for k in r if k != "kind"} for r in events])
    assert err.value.mismatch == "missing"


def test_a_version_1_log_still_plays_back_and_verify_says_it_has_no_commitment(tmp_path, capsys):
    from kismet_tui.replay import ReplaySource
    from kismet_tui.rules import new_game

    header = {
        "ruleset": "dice",
        "seats": ["Ana"],
        "seed": b"0123456789abcdef",
        "options": {},
        "t0": 0,
    }
    game = new_game("dice", 1, header["seed"])
    events = []
    for seq, action in enumerate(
        [{"type": "roll", "hold": []}, {"type": "score", "box": "aces"}], 1
    ):
        game.apply(0, action, seq * 10)
        events.append({"seq": seq, "t": seq * 10, "seat": 0, "action": action})
    path = tmp_path / "old.kismet"
    write(
        path,
        [{"kind": "header", "header": header, "table": 1}]
        + [{"kind": "event", **e} for e in events],
    )
    source = ReplaySource(header, events)
    while not source.done:
        source.next_event()
    assert source.game.digest() == game.digest() and source.game.cards[0]["aces"] is not None
    code, out = run_verify(path, capsys)
    assert code == 2 and "protocol version 1" in out and "no commitment" in out


async def test_a_race_game_with_bots_ends_verified(tmp_path):
    from kismet_tui.bots.runner import bot_factory

    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table("race", FAST["race"], bots=["easy", "hard"])
            await wait_until(lambda: all(s["connected"] for s in ana.table["seats"]))
            await ana.start()
            await wait_until(lambda: ana.game is not None)
            assert all(e is not None for e in ana.header["entropy"])  # the bots gave theirs
            assert len(ana.header["chance"]) == 11  # the circle's deals [D19]
            # Ana plays too: she passes each round, so the bots' grabs decide it.
            while not ana.game.finished:
                if ana.game.legal_actions(ana.seat):
                    try:
                        await ana.act({"type": "pass"})
                    except Exception:
                        pass
                await asyncio.sleep(0.01)
            await wait_until(lambda: ana.game.finished, timeout=90)
            await wait_until(lambda: ana.verification is not None)
            assert ana.verification.ok, ana.verification.words


async def test_an_older_client_is_told_in_words_and_bad_entropy_is_refused(tmp_path):
    from protocol import limits
    from protocol.framing import FROM_HOST, encode, read_frame

    async with running_host(tmp_path) as host:
        for old in (1, 2):  # version 2's commit and chance seed are not this host's
            reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
            writer.write(encode({"type": "hello", "version": old, "name": "Old", "id": 0}))
            reply = await asyncio.wait_for(read_frame(reader, FROM_HOST), 5)
            assert reply["code"] == "version"
            assert f"version 3, your client {old}" in reply["words"]
            assert "update your client" in reply["words"]
            assert await asyncio.wait_for(reader.read(), 5) == b""  # closed
            writer.close()
        async with connected(host, "Ana") as ana:
            await ana.create_table("race")
            with pytest.raises(Exception) as err:
                await ana._request({"type": "start", "entropy": b"short"})
            assert err.value.code == "bad_message"
            assert f"'entropy' must be {limits.ENTROPY_BYTES} random bytes." == err.value.words


@pytest.mark.parametrize(
    "chance,words",
    [
        ([3, 4, 5, 6], "The host did not send the die this move needs"),
        ([3, 4, 5, 6, 1, 2], "1 more chance value than this move draws"),
        ([3, 4, 9, 6, 1], "The host sent 9 as a die: a die shows 1 to 6."),
    ],
)
async def test_the_client_refuses_an_event_whose_chance_does_not_fit_and_says_so(chance, words):
    from kismet_tui.net import Client
    from tests.rules_util import vector_game

    header, events, _, _ = vector_game()

    class Wire:  # stands for the connection: records what the client sends
        sent = []

        def write(self, frame):
            self.sent.append(frame)

        def is_closing(self):
            return False

    client = Client(reconnect=False)
    client._writer = Wire()
    inbox = client.messages()
    client._dispatch({"type": "game", "header": header, "events": events[:2]})
    bad = {"type": "event", **events[2], "chance": chance}
    client._dispatch(bad)
    seen = []
    while len(seen) < 3:
        seen.append(await asyncio.wait_for(inbox.__anext__(), 2))
    fairness = [m for m in seen if m["type"] == "fairness"]
    assert fairness and not fairness[0]["ok"] and words in fairness[0]["words"]
    assert fairness[0]["words"].startswith("Move 3 came with chance that does not fit")
    assert len(client.events) == 2  # the event was not taken, and a resync was asked for
    assert client._awaiting_game


async def test_a_game_left_running_under_version_2_is_taken_up_and_still_verifies(tmp_path, capsys):
    """A host upgraded to version 3 takes up a game a version-2 host left running: it goes on
    drawing by version 2's derivation (the header has no `version`), and the game verifies."""
    import json

    from kismet_tui.rules import game_from_header
    from kismet_tui.rules.rng import SeededRNG, chance_seed, commitment

    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table("dice", {"away_limit_ms": 60000})
            await ana.start()
            await wait_until(lambda: ana.game is not None)
            await ana.act({"type": "roll", "hold": []})
            token = ana.token
    # Rewrite the running game as a version-2 host saved it: no version, its commit, its dice.
    [table_file] = (tmp_path / "tables").glob("*.json")
    saved = json.loads(table_file.read_text())
    seed = bytes.fromhex(saved["server_seed"])
    path = tmp_path / "games" / saved["game_file"]
    recs = records(path)
    header = recs[0]["header"]
    del header["version"]
    header["commit"] = commitment(seed, 2)
    rng = SeededRNG(chance_seed(seed, header["entropy"], 2))
    game = game_from_header(header, rng=rng)
    for rec in recs[1:]:
        game.apply(rec["seat"], rec["action"], rec["t"])
        rec.pop("chance", None)
        drawn = rng.take_drawn()
        if drawn:
            rec["chance"] = drawn
    write(path, recs)
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana", token=token) as ana:
            await wait_until(lambda: ana.game is not None and not any(ana.game.away))
            assert "version" not in ana.header and ana.table["commit"] == header["commit"]
            while not ana.game.finished:
                if ana.game.rolls == 0:
                    await ana.act({"type": "roll", "hold": []})
                else:
                    await ana.act({"type": "score", "box": ana.game.best_box()})
            await wait_until(lambda: ana.verification is not None)
            assert ana.verification.ok, ana.verification.words
    from server.identity import HostIdentity

    code, out = run_verify(path, capsys, "--host-key", HostIdentity.load(tmp_path).fingerprint)
    assert code == 0, out
