"""The fair-chance test vectors printed in docs/protocol.md are what the reference code gives:
the chance-seed derivation of versions 3 and 2 and one short whole game (header, events with
chance, end). A game saved under version 2 still verifies, by its own derivation."""

from pathlib import Path

from kismet_tui.rules import replay
from kismet_tui.rules.rng import chance_seed, commitment
from kismet_tui.rules.verify import verify
from tests.rules_util import ENTROPY, SERVER_SEED, vector_game

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()

THREE = [bytes([0xAA]) * 16, None, bytes([0x01]) * 16]


def event_line(event) -> str:
    action = event["action"]
    what = "roll hold []" if action["type"] == "roll" else f"score {action['box']}"
    chance = " ".join(map(str, event.get("chance", []))) or "-"
    return f"{event['seq']:>2} t={event['t']} {what:<32} chance: {chance}"


def vector_lines(version: int) -> list[str]:
    """The lines docs/protocol.md prints for one version's derivation."""
    return [
        f"v{version} commit: `{commitment(SERVER_SEED, version)}`",
        f"v{version} chance seed: `{chance_seed(SERVER_SEED, ENTROPY, version).hex()}`",
        f"v{version} seat 1 gave none: `{chance_seed(SERVER_SEED, THREE, version).hex()}`",
        f"v{version} nobody gave any: `{chance_seed(SERVER_SEED, [None], version).hex()}`",
    ]


def test_the_chance_seed_vectors_in_the_docs():
    for version in (3, 2):
        for line in vector_lines(version):
            assert line in DOC, line


def test_the_whole_game_vector_in_the_docs_replays_and_verifies():
    header, events, end, game = vector_game()
    assert header["version"] == 3
    for event in events:
        assert event_line(event) in DOC, event_line(event)
    assert f"result: scores {end['result']['scores']}" in DOC
    assert replay(header, events).digest() == game.digest()
    assert verify(header, events, end["server_seed"]).ok


def test_a_version_2_game_still_verifies_and_the_derivation_follows_the_header():
    header, events, end, _ = vector_game(version=2)
    assert "version" not in header
    assert verify(header, events, end["server_seed"]).ok
    # Read as version 3 the same log fails at the commit: the header picks the derivation.
    relabelled = {**header, "version": 3}
    result = verify(relabelled, events, end["server_seed"])
    assert not result.ok and result.seq == 0 and "not the one committed" in result.words
    # A version-3 game with its commit but version 2's dice fails at the first roll.
    v3_header, _, _, _ = vector_game()
    result = verify(v3_header, events, end["server_seed"])
    assert not result.ok and result.seq == 1, result
    unknown = verify({**v3_header, "version": 7}, events, end["server_seed"])
    assert not unknown.ok and "protocol version 7" in unknown.words


if __name__ == "__main__":  # prints the block for the docs
    header, events, end, _ = vector_game()
    for version in (3, 2):
        print("\n".join(vector_lines(version)))
    for event in events:
        print(event_line(event))
    print(f"result: scores {end['result']['scores']}")
