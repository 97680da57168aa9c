"""The dice game's notes as sentences for the move log (see kismet_tui/rules/dice.py)."""

from __future__ import annotations

from ..rules import dice
from ..rules.dice_types import Note, TimeoutNote
from .common import describe_common, faces, name_of, why_played


def box_name(box: str) -> str:
    return dice.BOX_NAMES.get(box, box)


def describe_dice(note: Note, names: list[str]) -> str | None:
    if note["type"] == "rolled":
        held, thrown = note["held"], note["dice"]
        # The faces kept, not their count: "keeping 3" read as "keeping the 3".
        kept = f", kept {faces([thrown[i] for i in held if i < len(thrown)])}" if held else ""
        return (
            f"{name_of(names, note['seat'])} throws {faces(thrown)} (throw {note['roll']}{kept})."
        )
    if note["type"] == "scored":
        who = name_of(names, note["seat"])
        joker = " as a joker" if note["joker"] else ""
        if note["points"] == 0:
            return f"{who} scratches {box_name(note['box'])} (0)."
        return f"{who} scores {note['points']} in {box_name(note['box'])}{joker}."
    if note["type"] == "penalty":
        lines = [f"Second Kismet for {name_of(names, note['seat'])}: the others lose a turn."]
        for seat, box in note["victims"]:
            lines.append(f"{name_of(names, seat)} gets 0 in {box_name(str(box))}.")
        return " ".join(lines)
    if note["type"] == "extra_turn":
        return f"{name_of(names, note['seat'])} throws again at once."
    if note["type"] == "turn":
        return f"{name_of(names, note['seat'])}'s turn."
    if note["type"] == "timeout":  # (the host's move says why: describe_host_move)
        return None
    return describe_common(note, names)


def describe_host_move(note: Note, names: list[str], played: TimeoutNote) -> str | None:
    """A move the host made for a seat (after its `timeout` note), saying why [D31]:
    "The host scored 18 in Yarborough for root: the 30 s turn limit passed." None: not a
    move of that seat's (the log says it as usual)."""
    if note.get("seat") != played["seat"]:
        return None
    who = name_of(names, played["seat"])
    if note["type"] == "rolled":
        return f"The host throws {faces(note['dice'])} for {who}."
    if note["type"] == "scored":
        joker = " as a joker" if note["joker"] else ""
        return (
            f"The host scored {note['points']} in {box_name(note['box'])}{joker} for {who}: "
            f"{why_played(played, names)}."
        )
    return None
