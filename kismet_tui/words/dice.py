"""The dice game's notes as sentences for the move log (see kismet_tui/rules/dice.py)."""

from __future__ import annotations

from ..rules import dice
from ..rules.dice_types import Note
from .common import describe_common, faces, name_of


def box_name(box: str) -> str:
    return dice.BOX_NAMES.get(box, box)


def describe_dice(note: Note, names: list[str]) -> str | None:
    if note["type"] == "rolled":
        held, thrown = note["held"], note["dice"]
        # The faces kept, not their count: "keeping 3" read as "keeping the 3".
        kept = f", kept {faces([thrown[i] for i in held if i < len(thrown)])}" if held else ""
        return f"{name_of(names, note['seat'])} throws {faces(thrown)} (throw {note['roll']}{kept})."
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
    if note["type"] == "timeout":
        return f"Time is up for {name_of(names, note['seat'])}: the host plays for them."
    return describe_common(note, names)
