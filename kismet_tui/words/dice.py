"""The dice game's notes as sentences for the move log (see kismet_tui/rules/dice.py)."""

from __future__ import annotations

from ..rules import dice
from .common import NoteData, describe_common, faces, name_of


def box_name(box: str) -> str:
    return dice.BOX_NAMES.get(box, box)


def describe_dice(note: NoteData, names: list[str]) -> str | None:
    kind = note.get("type")
    who = name_of(names, note.get("seat"))
    if kind == "rolled":
        held = note.get("held") or []
        thrown = note.get("dice") or []
        # The faces kept, not their count: "keeping 3" read as "keeping the 3".
        kept = f", kept {faces([thrown[i] for i in held if i < len(thrown)])}" if held else ""
        return f"{who} throws {faces(note.get('dice'))} (throw {note.get('roll')}{kept})."
    if kind == "scored":
        joker = " as a joker" if note.get("joker") else ""
        points = note.get("points", 0)
        if points == 0:
            return f"{who} scratches {box_name(note.get('box', ''))} (0)."
        return f"{who} scores {points} in {box_name(note.get('box', ''))}{joker}."
    if kind == "penalty":
        victims = note.get("victims") or []
        lines = [f"Second Kismet for {who}: the others lose a turn."]
        for seat, box in victims:
            lines.append(f"{name_of(names, seat)} gets 0 in {box_name(box)}.")
        return " ".join(lines)
    if kind == "extra_turn":
        return f"{who} throws again at once."
    if kind == "turn":
        return f"{who}'s turn."
    if kind == "timeout":
        return f"Time is up for {who}: the host plays for them."
    return describe_common(note, names)
