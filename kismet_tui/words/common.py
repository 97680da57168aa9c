"""What the three games' move logs share: names for seats, lists in words, dice faces, and
the notes every game makes (away, back, game over)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# A note as the replica made it (each game declares its notes in rules/*_types.py); the
# move log reads it by key, whichever game it is of.
NoteData = Mapping[str, Any]


def name_of(names: list[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return "the host" if seat == -1 else f"seat {seat}"


def faces(dice: list[int] | None) -> str:
    return " ".join(str(face) for face in dice or [])


def and_list(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def describe_common(note: NoteData, names: list[str]) -> str | None:
    kind = note.get("type")
    who = name_of(names, note.get("seat"))
    if kind == "away":
        return f"{who} is away."
    if kind == "back":
        return f"{who} is back."
    if kind == "game_over":
        winners = note.get("winners") or []
        scores = note.get("scores") or []
        if len(names) == 1 and scores:
            return f"Game over: {scores[0]} points."
        best = scores[winners[0]] if winners and winners[0] < len(scores) else 0
        return f"Game over: {and_list([name_of(names, s) for s in winners])} {'win' if len(winners) > 1 else 'wins'} with {best}."
    return None
