"""protocol/skeleton.py works out each character's prototype only when a name holds it; this
checks that, character by character, it gives what the whole table built at once gives (the
module's rules applied to every line of confusables.json, as it did before issue 23)."""

from __future__ import annotations

import json
from importlib import resources

from protocol import skeleton

MARKS = str.maketrans("", "", "\u200e\u200f")


def whole_table() -> dict[str, str]:
    """Every character's prototype, from every line of the file at once."""
    raw = json.loads(
        resources.files("confusable_homoglyphs")
        .joinpath("confusables.json")
        .read_text(encoding="utf-8")
    )
    alike: dict[str, list[str]] = {}
    for key, entries in raw.items():
        key = key.translate(MARKS)
        if key:
            alike.setdefault(key, []).extend(
                found for found in (entry["c"].translate(MARKS) for entry in entries) if found
            )
    mapping: dict[str, str] = {}
    for char, others in alike.items():
        if len(char) != 1 or len(set(others)) != 1:
            continue
        other = others[0]
        if len(other) > 1 or len(set(alike.get(other, ()))) > 1 or other < char:
            mapping[char] = other
    return {char: "".join(mapping.get(c, c) for c in target) for char, target in mapping.items()}


def test_each_character_maps_as_the_whole_table_says():
    table = whole_table()
    raw, _ = skeleton._file()
    # Every character the file names, as a key or inside a look-alike, and some it does not.
    chars = {
        c
        for key, entries in raw.items()
        for text in [key, *(e["c"] for e in entries)]
        for c in text
    } | set("abcmnrz019 ()\u200e")
    assert len(table) > 6000
    wrong = {
        c: (skeleton._prototype(c), table.get(c, c))
        for c in chars
        if skeleton._prototype(c) != table.get(c, c)
    }
    assert not wrong


def test_a_character_outside_the_file_is_not_remembered():
    before = skeleton._known_prototype.cache_info().currsize
    assert skeleton.skeleton("\U0001f600\U0001f601") == "\U0001f600\U0001f601"
    assert skeleton._known_prototype.cache_info().currsize == before
