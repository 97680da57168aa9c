"""The move log in words: each engine note (see each game module's docstring) as a sentence.

`describe(ruleset, note, names)` returns a plain string, or None for notes not worth a line.
Names are player-written text: callers put the result into rich Text, never into markup.
"""

from __future__ import annotations

from collections.abc import Iterable


def name_of(names: list[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return "the host" if seat == -1 else f"seat {seat}"


def _box_name(box: str) -> str:
    from ..rules import dice

    return dice.BOX_NAMES.get(box, box)


def _faces(dice: Iterable[object] | None) -> str:
    return " ".join(str(face) for face in dice or [])


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _common(note: dict, names: list[str]) -> str | None:
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
        return f"Game over: {_and([name_of(names, s) for s in winners])} {'win' if len(winners) > 1 else 'wins'} with {best}."
    return None


def describe_dice(note: dict, names: list[str]) -> str | None:
    kind = note.get("type")
    who = name_of(names, note.get("seat"))
    if kind == "rolled":
        held = note.get("held") or []
        dice = note.get("dice") or []
        # The faces kept, not their count: "keeping 3" read as "keeping the 3".
        kept = f", kept {_faces([dice[i] for i in held if i < len(dice)])}" if held else ""
        return f"{who} throws {_faces(note.get('dice'))} (throw {note.get('roll')}{kept})."
    if kind == "scored":
        joker = " as a joker" if note.get("joker") else ""
        points = note.get("points", 0)
        if points == 0:
            return f"{who} scratches {_box_name(note.get('box', ''))} (0)."
        return f"{who} scores {points} in {_box_name(note.get('box', ''))}{joker}."
    if kind == "penalty":
        victims = note.get("victims") or []
        lines = [f"Second Kismet for {who}: the others lose a turn."]
        for seat, box in victims:
            lines.append(f"{name_of(names, seat)} gets 0 in {_box_name(box)}.")
        return " ".join(lines)
    if kind == "extra_turn":
        return f"{who} throws again at once."
    if kind == "turn":
        return f"{who}'s turn."
    if kind == "timeout":
        return f"Time is up for {who}: the host plays for them."
    return _common(note, names)


def describe_race(note: dict, names: list[str]) -> str | None:
    kind = note.get("type")
    who = name_of(names, note.get("seat"))
    if kind == "rolled":
        return f"Round {note.get('round')}: {_faces(note.get('dice'))}."
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
    return _common(note, names)


def telling_order(notes: list) -> list:
    """The notes of one event in the order a person tells them: a race round's end ("Every
    matching card has been grabbed.") after the reveals that say who took which card."""
    ended = [note for note in notes if isinstance(note, dict) and note.get("type") == "round_ended"]
    if not ended:
        return notes
    rest = [note for note in notes if note not in ended]
    after = max((i + 1 for i, note in enumerate(rest) if note.get("type") == "revealed"), default=0)
    return rest[:after] + ended + rest[after:]


def describe(ruleset: str, note: dict, names: list[str]) -> str | None:
    if ruleset == "dice":
        return describe_dice(note, names)
    if ruleset == "race":
        return describe_race(note, names)
    if ruleset == "knock":
        from .knock_words import describe_knock

        return describe_knock(note, names)
    return _common(note, names)
