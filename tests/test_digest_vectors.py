"""The digest, as docs/protocol.md specifies it ("The digest, specified"), is the engine's.

Everything is parsed from the doc itself, so doc and engine cannot drift apart:
- each vector block replays, through the engine, to exactly the canonical text it shows, and
  that text hashes to the digest it shows;
- an encoder written here from the doc's words alone (not the engine's `canonical`) writes
  each documented state back byte for byte, and gives the engine's digest at every
  checkpoint of played games of all three kinds;
- the doc's field lists are the snapshot's fields, and its checkpoint notes the host's.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kismet_tui.rules import SeededRNG, apply_event, canonical, game_from_header, new_game
from kismet_tui.rules.playout import random_playout
from protocol.checkpoints import CHECKPOINT_NOTES, is_checkpoint

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
SECTION = DOC.split("\n## The digest, specified\n", 1)[1].split("\n## ", 1)[0]


# ---- an encoder from the doc's words ----------------------------------------------------

SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def quoted(text: str) -> str:
    out = ['"']
    for char in text:
        if char in SHORT_ESCAPES:
            out.append(SHORT_ESCAPES[char])
        elif 0x20 <= ord(char) <= 0x7E:
            out.append(char)
        else:  # four lowercase hex digits per UTF-16 code unit
            units = char.encode("utf-16-be")
            out.extend(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
    out.append('"')
    return "".join(out)


def encoded(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return ("-" if value < 0 else "") + str(abs(value))
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encoded(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: [ord(c) for c in key])
        return "{" + ",".join(quoted(key) + ":" + encoded(value[key]) for key in keys) + "}"
    raise TypeError(f"no {type(value).__name__} in a state")


def doc_digest(state: Any) -> str:
    return hashlib.sha256(encoded(state).encode("ascii")).hexdigest()


# ---- what the doc says --------------------------------------------------------------------


def vector_blocks() -> list[list[tuple[str, str]]]:
    blocks = re.findall(r"```digest-vectors\n(.*?)```", SECTION, re.S)
    return [
        [tuple(line.split(" ", 1)) for line in block.strip().splitlines()]  # type: ignore[misc]
        for block in blocks
    ]


def field_table(title: str) -> set[str]:
    """The field names of the table that follows `title` in the section."""
    table = SECTION.split(title, 1)[1].split("\n\n", 2)[1]
    return {row.split("`")[1] for row in table.splitlines()[2:]}


COMMON = field_table("Every game has these:")


def test_the_section_has_a_vector_block_per_game_with_states():
    rulesets = {json.loads(dict(block)["header"])["ruleset"] for block in vector_blocks()}
    assert rulesets == {"dice", "knock", "race"}
    for block in vector_blocks():
        assert sum(1 for kind, _ in block if kind == "state") >= 3


def test_one_vector_is_a_whole_game_whose_last_state_is_its_end():
    """The short game of "Chance"'s test vectors, played to its end (scores [103])."""
    [block] = [b for b in vector_blocks() if '"seats":["Ana"]' in b[0][1]]
    game = game_from_header(json.loads(block[0][1]))
    for kind, text in block[1:]:
        if kind == "event":
            apply_event(game, json.loads(text))
    assert game.finished and game.result()["scores"] == [103]
    assert block[-1] == ("digest", game.digest())


@pytest.mark.parametrize("block", vector_blocks(), ids=lambda b: json.loads(b[0][1])["ruleset"])
def test_each_vector_replays_to_its_state_and_digest(block):
    kind, header = block[0]
    assert kind == "header"
    game = game_from_header(json.loads(header))
    pending_state = None
    for kind, text in block[1:]:
        if kind == "event":
            apply_event(game, json.loads(text))
        elif kind == "state":
            assert canonical(game.snapshot()).decode() == text
            pending_state = text
        else:
            assert kind == "digest" and pending_state is not None
            assert game.digest() == text
            # From the doc's words alone: the text written back as it is, and its hash.
            assert encoded(json.loads(pending_state)) == pending_state
            assert hashlib.sha256(pending_state.encode("ascii")).hexdigest() == text
            pending_state = None


@pytest.mark.parametrize(
    "ruleset,seats,weights",
    [
        ("dice", 3, None),
        ("race", 3, None),
        ("knock", 3, {"knock": 1}),
    ],
)
def test_the_docs_encoder_gives_the_engines_digest_at_every_checkpoint(ruleset, seats, weights):
    """Played games (random legal moves, players dropping and coming back) of every kind:
    at every checkpoint, the digest from the doc's words is the engine's, and the state's
    fields are the ones the doc lists."""
    fields = COMMON | field_table(f"Fields of `{ruleset}`")
    for seed in range(2):
        played = new_game(ruleset, seats, seed=f"digest {ruleset} {seed}", options={})
        events = random_playout(
            played,
            SeededRNG(f"moves {seed}"),
            away_chance=9,
            weights=weights,
            default_weight=24 if weights else 1,
        )
        assert played.finished
        game = new_game(ruleset, seats, seed=f"digest {ruleset} {seed}", options={})
        checked = 0
        for event in events:
            notes = game.apply(event["seat"], event["action"], event["t"])
            if is_checkpoint(event["seq"], notes, game.finished):
                snapshot = game.snapshot()
                assert set(snapshot) - {"idle"} == fields - {"idle"}
                assert doc_digest(snapshot) == game.digest()
                checked += 1
        assert checked >= 2


def test_an_idle_seat_adds_the_idle_field_and_only_then():
    game = new_game("dice", 2, seed="idle", options={})
    assert "idle" not in game.snapshot()
    game.apply(-1, {"type": "away", "seat": 1, "idle": True}, 10)
    assert game.snapshot()["idle"] == [False, True]
    assert doc_digest(game.snapshot()) == game.digest()
    game.apply(-1, {"type": "back", "seat": 1}, 20)
    assert "idle" not in game.snapshot()


@pytest.mark.parametrize(
    "text", ['say "hi"', "back\\slash", "tab\there\nnew", "\x00\x1f\x7f", "café", "😀 emoji", "é"]
)
def test_strings_are_escaped_as_the_doc_says(text):
    """No state holds such strings today, but the doc's rule is the engine's."""
    assert encoded({"s": text, "n": -1}).encode() == canonical({"s": text, "n": -1})


def test_the_checkpoint_notes_are_the_hosts():
    table = SECTION.split("**Checkpoints.**", 1)[1].split("\n\n", 2)[1]
    documented = {row.split("`")[1] for row in table.splitlines()[2:]}
    assert documented == set(CHECKPOINT_NOTES)
