"""`kismet-replay --verify` names the edit, not its consequence (issue 29, point 8).

A value changed in an event is blamed on that event, even when the engine takes the changed
value and only a later event stops replaying (a knock game's first roller, drawn in event 8,
changed: event 9's roll by the true first roller is then "not your turn"). An end record with
one field edited is named by that field, with what it says and what the events give.

The logs are written and signed by the host's own writer (server/store.py) with a host key
made here, for a game of random legal moves drawn from a committed seed; each edit is signed
again with that key, as a forger holding it would, so only the edit itself can show.
"""

from __future__ import annotations

import pytest

from kismet_tui.cli import replay_main
from kismet_tui.rules import SeededRNG, game_from_header
from kismet_tui.rules.knock import PUBLIC_SALT, prelay_commitment
from kismet_tui.rules.playout import random_playout
from protocol.gamelog import iter_records
from server.chance import GameSecret
from server.identity import HostIdentity
from server.store import GameWriter

NAMES = ["Ana", "Bo", "Cy", "Di"]


def played(
    ruleset: str, seats: int, opening: list[dict], weights: dict | None = None
) -> tuple[dict, list[dict], GameSecret]:
    """A whole game from a committed seed: `opening` (seat, t, action) first, then random
    legal moves. Returns its header, its events (with their chance) and its secret."""
    secret = GameSecret(bytes(range(32)))
    entropy = [None] * seats
    header = {
        "ruleset": ruleset,
        "seats": NAMES[:seats],
        "options": {},
        "t0": 1000,
        "commit": secret.commit,
        "version": 3,
        "entropy": entropy,
        "players": [None] * seats,
    }
    # The moves: drawn on a game of the same stream, then stamped with their chance.
    rehearsal = game_from_header({**header, "chance": []}, rng=secret.stream(entropy))
    for seq, move in enumerate(opening, start=1):
        rehearsal.apply(move["seat"], move["action"], move["t"])
        move["seq"] = seq
    moves = opening + random_playout(
        rehearsal,
        SeededRNG("first edit"),
        first_seq=len(opening) + 1,
        weights=weights,
        default_weight=24 if weights else 1,
    )
    stream = secret.stream(entropy)
    game = game_from_header({**header, "chance": []}, rng=stream)
    header["chance"] = stream.take_drawn()
    events = []
    for move in moves:
        game.apply(move["seat"], move["action"], move["t"])
        event = {"seq": move["seq"], "t": move["t"], "seat": move["seat"], "action": move["action"]}
        drawn = stream.take_drawn()
        if drawn:
            event["chance"] = drawn
        events.append(event)
    assert game.finished
    return header, events, secret


def signed(path, identity: HostIdentity, header: dict, events: list[dict], end: dict):
    writer = GameWriter(path, header, 1, events[:-1], identity=identity, sync=False)
    writer.append(events[-1], end=end)
    writer.close()
    return path


def honest_end(header: dict, events: list[dict], secret: GameSecret) -> dict:
    game = game_from_header(header)
    for event in events:
        game.rng.feed(event.get("chance"))
        game.apply(event["seat"], event["action"], event["t"])
        game.rng.done()
    return {"result": game.result(), "digest": game.digest(), "server_seed": secret.server_seed}


def verify_lines(path, identity: HostIdentity, capsys) -> tuple[int, list[str]]:
    code = replay_main(["--verify", "--host-key", identity.fingerprint, str(path)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, [line.removeprefix(f"{path}: ") for line in (out.out + out.err).splitlines()]


@pytest.fixture(scope="module")
def identity(tmp_path_factory):
    return HostIdentity.load(tmp_path_factory.mktemp("host-key"))


def knock_opening() -> list[dict]:
    """Four empty pre-lays committed, then revealed: event 8, the last reveal, draws the
    first roller."""
    commit = prelay_commitment([], PUBLIC_SALT)
    moves = [
        {"seat": s, "t": 1100 + 10 * s, "action": {"type": "prelay", "commit": commit}}
        for s in range(4)
    ]
    moves += [
        {
            "seat": s,
            "t": 1200 + 10 * s,
            "action": {"type": "reveal", "cards": [], "salt": PUBLIC_SALT},
        }
        for s in range(4)
    ]
    return moves


def test_a_changed_first_roller_blames_the_event_that_drew_it(identity, tmp_path, capsys):
    header, events, secret = played("knock", 4, knock_opening(), weights={"knock": 1})
    end = honest_end(header, events, secret)
    honest = signed(tmp_path / "honest.kismet", identity, header, events, end)
    assert verify_lines(honest, identity, capsys)[0] == 0
    [first] = events[7]["chance"]
    events[7]["chance"] = [(first + 1) % 4]  # another first roller: still a legal value
    path = signed(tmp_path / "first-roller.kismet", identity, header, events, end)
    code, lines = verify_lines(path, identity, capsys)
    assert code == 1, lines
    assert lines[0].startswith(f"Signed by host {identity.fingerprint}"), lines
    assert not any(line.startswith("Event 9") for line in lines), lines
    assert lines[1].startswith(
        "Event 8 (reveal by Di): the log shows "
        f"{(first + 1) % 4} but the committed seed gives {first}."
    ), lines


def test_an_edited_bonus_is_named_with_both_values(identity, tmp_path, capsys):
    opening: list[dict] = []
    header, events, secret = played("dice", 2, opening)
    end = honest_end(header, events, secret)
    honest = list(end["result"]["bonus"])
    forged = [b + 35 for b in honest]
    end["result"]["bonus"] = forged
    path = signed(tmp_path / "bonus.kismet", identity, header, events, end)
    code, lines = verify_lines(path, identity, capsys)
    assert code == 1, lines
    assert lines[-1] == (
        f"The end record's result is not what the events give: in bonus it says "
        f"{forged!r}, the events give {honest!r}."
    ), lines


def test_a_missing_field_of_the_result_is_named(identity, tmp_path, capsys):
    header, events, secret = played("dice", 2, [])
    end = honest_end(header, events, secret)
    kismet = end["result"].pop("kismet_section")
    path = signed(tmp_path / "missing.kismet", identity, header, events, end)
    code, lines = verify_lines(path, identity, capsys)
    assert code == 1, lines
    assert lines[-1] == (
        f"The end record's result is not what the events give: it has no "
        f"kismet_section, the events give {kismet!r}."
    ), lines


def test_records_of_the_log_read_back(identity, tmp_path):
    """(The logs above are real logs: the reader takes them whole.)"""
    header, events, secret = played("dice", 2, [])
    path = signed(
        tmp_path / "plain.kismet", identity, header, events, honest_end(header, events, secret)
    )
    with open(path, "rb") as stream:
        kinds = [record["kind"] for record in iter_records(stream)]
    assert kinds[0] == "header" and kinds[-2:] == ["end", "signature"]
