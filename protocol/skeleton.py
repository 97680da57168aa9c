"""Unicode's confusable skeletons (UTS #39, section 4): one string for all look-alikes.

`skeleton("сarol")` (a Cyrillic с) equals `skeleton("carol")`; `skeleton("rn")` equals
`skeleton("m")`. The data is Unicode's confusables.txt as the `confusable-homoglyphs` package
ships it (confusables.json). That file keeps each line both ways round (source -> prototype
and prototype -> source), so the direction is read back here, once, from its shape:
- a key of more than one character is always a prototype (every source is one code point);
- a character with several look-alikes is a prototype (nothing maps onto a source);
- a character with one look-alike maps to it when that one is a prototype by the rules
  above; the rest are pairs (one source, one prototype, no other member), and either of the
  two can stand for both: the smaller one is taken.
Prototypes picked that way are then mapped inside every other prototype too, so a key stays
one string per class of look-alikes. The file's comments wrap right-to-left characters in
LEFT-TO-RIGHT MARKs, which are dropped.

Keys are compared, never shown: what a player sees is the name as typed.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from importlib import resources

_MARKS = str.maketrans("", "", "\u200e\u200f")   # LRM and RLM from the file's comments


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """character -> the string standing for every character that looks like it."""
    raw = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json")
                     .read_text(encoding="utf-8"))
    alike: dict[str, list[str]] = {}
    for key, entries in raw.items():
        key = key.translate(_MARKS)
        if key:
            alike.setdefault(key, []).extend(
                found for found in (entry["c"].translate(_MARKS) for entry in entries) if found)
    mapping: dict[str, str] = {}
    for char, others in alike.items():
        if len(char) != 1 or len(set(others)) != 1:
            continue   # a sequence, or a prototype with several look-alikes
        other = others[0]
        if len(other) > 1 or len(set(alike.get(other, ()))) > 1:
            mapping[char] = other
        elif other < char:
            mapping[char] = other   # a pair: the smaller one stands for both
    return {char: "".join(mapping.get(c, c) for c in target) for char, target in mapping.items()}


def skeleton(text: str) -> str:
    """UTS #39's skeleton of `text`: NFD, each character mapped to its prototype, NFD."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))
