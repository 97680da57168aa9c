"""The knock game's notes as sentences for the move log (see kismet_tui/rules/knock.py)."""

from __future__ import annotations

from ..rules.knock_types import DefaultPlayNote, Note
from .common import and_list, describe_common, faces, limit_words, name_of, why_played

CASES = {
    "overlooked": "the thrower had missed a match",
    "roller_holds": "the thrower holds a match and did not pass",
    "roller_has_none": "the thrower had no match",
}


def describe_knock(note: Note, names: list[str]) -> str | None:
    if note["type"] == "committed":
        return f"{name_of(names, note['seat'])} has chosen their cards to lay in advance."
    if note["type"] == "prelay_defaulted":
        return (
            f"{name_of(names, note['seat'])} ran out of time (the {limit_words(note['limit_ms'])} "
            "limit passed): nothing laid in advance."
        )
    if note["type"] == "revealed":
        who, count = name_of(names, note["seat"]), note["count"]
        if not count:
            return f"{who} lays nothing in advance."
        return f"{who} lays {count} card{'s' if count != 1 else ''} in advance."
    if note["type"] == "prelays_done":
        return f"{name_of(names, note['first_roller'])} throws first."
    if note["type"] == "default_play":  # (the host's move says why: describe_host_move)
        return None
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
        return f"Round {note['round']} goes to {winners}." + (
            f" Minus points: {counts}." if counts else ""
        )
    return describe_common(note, names)


def describe_host_move(note: Note, names: list[str], played: DefaultPlayNote) -> str | None:
    """A move the host made for the seat on turn (after its `default_play` note), saying
    why [D31]: "The host laid 5 for Bo: the 30 s turn limit passed." None: not a move of
    that seat's (the log says it as usual)."""
    if note.get("seat") != played["seat"]:
        return None
    who = name_of(names, played["seat"])
    if note["type"] == "rolled":
        joker = " (joker throw!)" if note["joker"] else ""
        return f"The host throws {faces(note['dice'])}{joker} for {who}."
    if note["type"] == "laid":
        return f"The host laid {and_list([str(n) for n in note['cards']])} for {who}: {why_played(played, names)}."
    if note["type"] == "passed":
        return f"The host passed for {who} (no match): {why_played(played, names)}."
    return None
