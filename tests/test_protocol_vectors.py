"""The fair-chance test vectors printed in docs/protocol.md are what the reference code gives:
the chance-seed derivation and one short whole game (header, events with chance, end)."""

import hashlib
from pathlib import Path

from kismet_tui.rules import new_game, replay
from kismet_tui.rules.rng import SeededRNG, chance_seed, commitment
from kismet_tui.rules.verify import verify

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()

SERVER_SEED = bytes(range(32))                   # 000102...1f
ENTROPY = [bytes([0xAA]) * 16]                   # one seat


def vector_game():
    """A solo dice game: each turn one roll, then the best box. Returns header, events, end."""
    rng = SeededRNG(chance_seed(SERVER_SEED, ENTROPY))
    game = new_game("dice", ["Ana"], None, {}, rng=rng, start_ms=1000)
    header = {"ruleset": "dice", "seats": ["Ana"], "options": game.options, "t0": 1000,
              "commit": commitment(SERVER_SEED), "entropy": ENTROPY, "chance": rng.take_drawn()}
    events = []
    while not game.finished:
        action = ({"type": "roll", "hold": []} if game.rolls == 0
                  else {"type": "score", "box": game.best_box()})
        t = 1000 + 100 * (len(events) + 1)
        game.apply(0, action, t)
        event = {"seq": len(events) + 1, "t": t, "seat": 0, "action": action}
        chance = rng.take_drawn()
        if chance:
            event["chance"] = chance
        events.append(event)
    return header, events, {"result": game.result(), "server_seed": SERVER_SEED}, game


def event_line(event) -> str:
    action = event["action"]
    what = (f"roll hold []" if action["type"] == "roll" else f"score {action['box']}")
    chance = " ".join(map(str, event.get("chance", []))) or "-"
    return f"{event['seq']:>2} t={event['t']} {what:<32} chance: {chance}"


def test_the_chance_seed_vector_in_the_docs():
    seed = chance_seed(SERVER_SEED, ENTROPY)
    assert seed == hashlib.sha256(SERVER_SEED + ENTROPY[0]).digest()
    assert f"chance seed: `{seed.hex()}`" in DOC
    assert f"commit: `{commitment(SERVER_SEED)}`" in DOC
    three = chance_seed(SERVER_SEED, [bytes([0xAA]) * 16, None, bytes([0x01]) * 16])
    assert f"seat 1 gave none: `{three.hex()}`" in DOC


def test_the_whole_game_vector_in_the_docs_replays_and_verifies():
    header, events, end, game = vector_game()
    for event in events:
        assert event_line(event) in DOC, event_line(event)
    assert f"result: scores {end['result']['scores']}" in DOC
    assert replay(header, events).digest() == game.digest()
    assert verify(header, events, end["server_seed"]).ok


if __name__ == "__main__":  # prints the block for the docs
    header, events, end, _ = vector_game()
    print(f"commit: `{header['commit']}`")
    print(f"chance seed: `{chance_seed(SERVER_SEED, ENTROPY).hex()}`")
    print(f"seat 1 gave none: `{chance_seed(SERVER_SEED, [bytes([0xAA]) * 16, None, bytes([0x01]) * 16]).hex()}`")
    for event in events:
        print(event_line(event))
    print(f"result: scores {end['result']['scores']}")
