"""The knock game's notes as sentences for the move log (see kismet_tui/rules/knock.py)."""

from __future__ import annotations

from ..rules.knock_types import Note
from .common import and_list, describe_common, faces, name_of

CASES = {
    "overlooked": "the thrower had missed a match",
    "roller_holds": "the thrower holds a match and did not pass",
    "roller_has_none": "the thrower had no match",
}


def describe_knock(note: Note, names: list[str]) -> str | None:
    if note["type"] == "committed":
        return f"{name_of(names, note['seat'])} has chosen their cards to lay in advance."
    if note["type"] == "prelay_defaulted":
        return f"{name_of(names, note['seat'])} ran out of time: nothing laid in advance."
    if note["type"] == "revealed":
        who, count = name_of(names, note["seat"]), note["count"]
        if not count:
            return f"{who} lays nothing in advance."
        return f"{who} lays {count} card{'s' if count != 1 else ''} in advance."
    if note["type"] == "prelays_done":
        return f"{name_of(names, note['first_roller'])} throws first."
    if note["type"] == "default_play":
        return f"Time is up for {name_of(names, note['seat'])}: the host plays for them."
    if note["type"] == "rolled":
        joker = " (joker throw!)" if note["joker"] else ""
        return f"{name_of(names, note['seat'])} throws {faces(note['dice'])}{joker}."
    if note["type"] == "laid":
        return f"{name_of(names, note['seat'])} lays {and_list([str(n) for n in note['cards']])}."
    if note["type"] == "passed":
        return f"{name_of(names, note['seat'])} passes."
    if note["type"] == "knocked":
        who = name_of(names, note["seat"])
        why = CASES.get(note["case"], "")
        if note["judgement"] == "good":
            if note["laid"] is not None:
                line = f"{who} knocks: right, {why}. {who} lays {note['laid']}."
            else:
                line = f"{who} knocks: right, {why}."
        elif note["judgement"] == "too_slow":
            line = f"{who} knocks: too slow."
        else:
            line = f"{who} knocks: wrong, {why}."
        turned = note["turned_up"]
        if turned:
            line += f" {name_of(names, turned['seat'])} takes back their {turned['card']}."
        return line
    if note["type"] == "turn":
        return None  # the screen shows whose turn it is
    if note["type"] == "round_over":
        winners = and_list([name_of(names, s) for s in note["winners"]])
        counts = ", ".join(f"{name_of(names, s)} -{m}" for s, m in enumerate(note["minus"]) if m)
        return f"Round {note['round']} goes to {winners}." + (f" Minus points: {counts}." if counts else "")
    return describe_common(note, names)
