"""The move log's lines, the one way the screens get them: the notes of an event (as the
client's replica made them) in the order a person tells them, each as a sentence.

`event_lines` says one event; `history_lines` the events of a game so far, from the notes the
replica kept (kismet_tui.source.GameSource.applied_notes), for a screen that opens on a game
under way. No engine runs here: the replica has already played every event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ..rules import dice_types, knock_types, race_types
from .common import CommonNote, NoteData, describe_common
from .dice import describe_dice
from .dice import describe_host_move as dice_host_move
from .knock import describe_host_move as knock_host_move
from .knock import describe_knock
from .race import describe_race

# A line of the move log: its sentence and the seat it is about (None: nobody's).
Line = tuple[str, "int | None"]
LIMIT = 200  # the past a new screen writes: the log never shows more than a screen or two


def describe(ruleset: str, note: NoteData, names: list[str]) -> str | None:
    """One note as a plain sentence, or None for a note not worth a line. Names are
    player-written text: callers put the result into rich Text, never into markup."""
    # The replica's engine of `ruleset` made the note, so it is one of that game's declared
    # notes: from here on each field is read as the game declares it, and a misspelt one fails mypy.
    if ruleset == "dice":
        return describe_dice(cast(dice_types.Note, note), names)
    if ruleset == "race":
        return describe_race(cast(race_types.Note, note), names)
    if ruleset == "knock":
        return describe_knock(cast(knock_types.Note, note), names)
    return describe_common(cast(CommonNote, note), names)


def telling_order(notes: Sequence[NoteData]) -> list[NoteData]:
    """The notes of one event in the order a person tells them: a race round's end ("Every
    matching card has been grabbed.") after the reveals that say who took which card."""
    ended = [note for note in notes if isinstance(note, dict) and note.get("type") == "round_ended"]
    if not ended:
        return list(notes)
    rest = [note for note in notes if note not in ended]
    after = max((i + 1 for i, note in enumerate(rest) if note.get("type") == "revealed"), default=0)
    return rest[:after] + ended + rest[after:]


def host_move(
    ruleset: str, note: NoteData, names: list[str], played: NoteData | None
) -> str | None:
    """`note` as a move the host made for a seat, saying why (`played`: the event's note
    that the host played, if any), or None when it is not one [D31]."""
    if played is None or "why" not in played:
        return None
    if ruleset == "dice":
        return dice_host_move(
            cast(dice_types.Note, note), names, cast(dice_types.TimeoutNote, played)
        )
    if ruleset == "knock":
        return knock_host_move(
            cast(knock_types.Note, note), names, cast(knock_types.DefaultPlayNote, played)
        )
    return None


def event_lines(ruleset: str, notes: Sequence[NoteData], names: list[str]) -> list[Line]:
    """The lines one event's notes make, in telling order."""
    lines: list[Line] = []
    played = next((note for note in notes if note.get("type") in ("timeout", "default_play")), None)
    for note in telling_order(notes):
        words = host_move(ruleset, note, names, played) or describe(ruleset, note, names)
        if words:
            seat = note.get("seat")
            lines.append((words, seat if isinstance(seat, int) else None))
    return lines


def history_lines(
    ruleset: str,
    notes_per_event: Sequence[Sequence[NoteData]],
    names: list[str],
    first_seq: int = 1,
    limit: int = LIMIT,
) -> list[Line]:
    """The lines of the events numbered `first_seq` and on (events count from 1, as their seq
    does), the last `limit` of them."""
    lines: list[Line] = []
    for notes in notes_per_event[max(0, first_seq - 1) :]:
        lines.extend(event_lines(ruleset, notes, names))
        if len(lines) > 2 * limit:  # trim as we go: a long game stays cheap to catch up
            del lines[:-limit]
    return lines[-limit:]
