"""What the three games' move logs share: names for seats, lists in words, dice faces, and
the notes every game makes (away, back, game over)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rules import HOST
from ..rules.game_types import AwayNote, BackNote, GameOverNote

# A note as the replica made it, before the move log knows its game: words/log.py hands it to
# that game's describer, which reads it as the game declares its notes (rules/*_types.py).
NoteData = Mapping[str, Any]
CommonNote = AwayNote | BackNote | GameOverNote


def name_of(names: list[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return "the host" if seat == HOST else f"seat {seat}"


def faces(dice: list[int] | None) -> str:
    return " ".join(str(face) for face in dice or [])


def and_list(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def limit_words(ms: int) -> str:
    """A limit as a person says it: "30 s", "1.5 s", "2 min"."""
    if ms >= 60_000 and ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    return f"{ms / 1000:g} s"


def why_played(note: Mapping[str, Any], names: list[str]) -> str:
    """Why the host played for a seat, from the engine's note [D31]: "the 30 s turn limit
    passed"."""
    who = name_of(names, note.get("seat"))
    limit = limit_words(int(note.get("limit_ms") or 0))
    why = note.get("why")
    if why == "turn_limit":
        return f"the {limit} turn limit passed"
    if why == "away_limit":
        return f"{who} is away and the {limit} away-limit passed"
    return f"{who} is away until they press a key"


def describe_common(note: CommonNote, names: list[str]) -> str | None:
    if note["type"] == "away":
        if note.get("idle"):
            return f"{name_of(names, note['seat'])} is away: the host plays for them until they press a key."
        return f"{name_of(names, note['seat'])} is away."
    if note["type"] == "back":
        return f"{name_of(names, note['seat'])} is back."
    if note["type"] == "game_over":
        winners = note["winners"]
        scores = note["scores"]
        if len(names) == 1 and scores:
            return f"Game over: {scores[0]} points."
        best = scores[winners[0]] if winners and winners[0] < len(scores) else 0
        return f"Game over: {and_list([name_of(names, s) for s in winners])} {'win' if len(winners) > 1 else 'wins'} with {best}."
    return None
