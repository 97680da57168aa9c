"""The race game's notes as sentences for the move log (see kismet_tui/rules/race.py)."""

from __future__ import annotations

from .common import NoteData, describe_common, faces, name_of


def describe_race(note: NoteData, names: list[str]) -> str | None:
    kind = note.get("type")
    who = name_of(names, note.get("seat"))
    if kind == "rolled":
        return f"Round {note.get('round')}: {faces(note.get('dice'))}."
    if kind == "wiped":
        return "No card matched: the whole circle is cleared."
    if kind == "grabbed":
        return None  # shown on the card itself at once; the reveal says the rest
    if kind == "passed":
        return f"{who} passes."
    if kind == "round_ended":
        return {"time_up": "Time is up.", "no_match_left": "Every matching card has been grabbed."}.get(str(note.get("why")))
    if kind == "revealed":
        if note.get("right"):
            return f"{who} takes the {note.get('number')}."
        lost = " and gives back a card" if note.get("penalty") is not None else ""
        return f"{who} grabbed a wrong {note.get('number')}{lost}."
    return describe_common(note, names)
