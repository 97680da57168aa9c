"""The race game's notes as sentences for the move log (see kismet_tui/rules/race.py)."""

from __future__ import annotations

from ..rules.race_types import Note
from .common import describe_common, faces, name_of


def describe_race(note: Note, names: list[str]) -> str | None:
    if note["type"] == "rolled":
        return f"Round {note['round']}: {faces(note['dice'])}."
    if note["type"] == "wiped":
        return "No card matched: the whole circle is cleared."
    if note["type"] == "grabbed":
        return None  # shown on the card itself at once; the reveal says the rest
    if note["type"] == "passed":
        return f"{name_of(names, note['seat'])} passes."
    if note["type"] == "round_ended":
        return {
            "time_up": "Time is up.",
            "no_match_left": "Every matching card has been grabbed.",
        }.get(note["why"])
    if note["type"] == "revealed":
        who = name_of(names, note["seat"])
        if note["right"]:
            return f"{who} takes the {note['number']}."
        lost = " and gives back a card" if note["penalty"] is not None else ""
        return f"{who} grabbed a wrong {note['number']}{lost}."
    if note["type"] == "dealt" or note["type"] == "pause" or note["type"] == "countdown":
        return None  # the screen shows the new cards and the clock
    return describe_common(note, names)
