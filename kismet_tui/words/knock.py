"""The knock game's notes as sentences for the move log (see kismet_tui/rules/knock.py)."""

from __future__ import annotations

from .common import NoteData, and_list, describe_common, faces, name_of

CASES = {
    "overlooked": "the thrower had missed a match",
    "roller_holds": "the thrower holds a match and did not pass",
    "roller_has_none": "the thrower had no match",
}


def describe_knock(note: NoteData, names: list[str]) -> str | None:
    kind = note.get("type")
    who = name_of(names, note.get("seat"))
    if kind == "committed":
        return f"{who} has chosen their cards to lay in advance."
    if kind == "prelay_defaulted":
        return f"{who} ran out of time: nothing laid in advance."
    if kind == "revealed":
        count = note.get("count", 0)
        if not count:
            return f"{who} lays nothing in advance."
        return f"{who} lays {count} card{'s' if count != 1 else ''} in advance."
    if kind == "prelays_done":
        return f"{name_of(names, note.get('first_roller'))} throws first."
    if kind == "default_play":
        return f"Time is up for {who}: the host plays for them."
    if kind == "rolled":
        joker = " (joker throw!)" if note.get("joker") else ""
        return f"{who} throws {faces(note.get('dice'))}{joker}."
    if kind == "laid":
        return f"{who} lays {and_list([str(n) for n in note.get('cards') or []])}."
    if kind == "passed":
        return f"{who} passes."
    if kind == "knocked":
        judgement = note.get("judgement")
        why = CASES.get(str(note.get("case")), "")
        if judgement == "good":
            if note.get("laid") is not None:
                line = f"{who} knocks: right, {why}. {who} lays {note['laid']}."
            else:
                line = f"{who} knocks: right, {why}."
        elif judgement == "too_slow":
            line = f"{who} knocks: too slow."
        else:
            line = f"{who} knocks: wrong, {why}."
        turned = note.get("turned_up")
        if turned:
            line += f" {name_of(names, turned.get('seat'))} takes back their {turned.get('card')}."
        return line
    if kind == "turn":
        return None  # the screen shows whose turn it is
    if kind == "round_over":
        winners = and_list([name_of(names, s) for s in note.get("winners") or []])
        minus = note.get("minus") or []
        counts = ", ".join(f"{name_of(names, s)} -{m}" for s, m in enumerate(minus) if m)
        return f"Round {note.get('round')} goes to {winners}." + (f" Minus points: {counts}." if counts else "")
    return describe_common(note, names)
