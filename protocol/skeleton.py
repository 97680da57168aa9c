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
from functools import cache, lru_cache
from importlib import resources

_MARKS = str.maketrans("", "", "\u200e\u200f")  # LRM and RLM from the file's comments


@lru_cache(maxsize=1)
def _file() -> tuple[dict[str, list[dict[str, str]]], dict[str, list[str]]]:
    """confusables.json as it is, and for each key the file writes with marks, the keys that
    stand for it. Read whole once; each character's look-alikes are worked out only when a
    name holds it (`_prototype`), which saves a host its first hello most of the time
    (benchmarks/startup.py)."""
    raw: dict[str, list[dict[str, str]]] = json.loads(
        resources.files("confusable_homoglyphs")
        .joinpath("confusables.json")
        .read_text(encoding="utf-8")
    )
    marked: dict[str, list[str]] = {}
    for key in raw:
        if "\u200e" in key or "\u200f" in key:
            marked.setdefault(key.translate(_MARKS), []).append(key)
    return raw, marked


def _alike(key: str) -> tuple[str, ...]:
    """Every string the file says looks like `key` (marks dropped, empty ones left out); a
    key with marks in it is none of the file's (its marks are dropped as it is read)."""
    raw, marked = _file()
    if key != key.translate(_MARKS):
        return ()
    keys = ([key] if key in raw else []) + marked.get(key, [])
    return tuple(
        found
        for written in keys
        for found in (entry["c"].translate(_MARKS) for entry in raw[written])
        if found
    )


def _direct(char: str) -> str | None:
    """The prototype `char` maps to by the rules in the module's words, before prototypes
    are mapped inside each other; None: `char` stands for itself."""
    others = _alike(char)
    if len(char) != 1 or len(set(others)) != 1:
        return None  # a sequence, or a prototype with several look-alikes
    other = others[0]
    if len(other) > 1 or len(set(_alike(other))) > 1:
        return other
    return other if other < char else None  # a pair: the smaller one stands for both


def _prototype(char: str) -> str:
    """The string standing for every character that looks like `char`."""
    raw, marked = _file()
    if char not in raw and char not in marked:
        return char  # in no line of the file (most characters): nothing to remember
    return _known_prototype(char)


@cache  # at most one entry per key of the file, whatever names come
def _known_prototype(char: str) -> str:
    target = _direct(char)
    return char if target is None else "".join(_direct(c) or c for c in target)


def skeleton(text: str) -> str:
    """UTS #39's skeleton of `text`: NFD, each character mapped to its prototype, NFD."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(_prototype(c) for c in decomposed))
