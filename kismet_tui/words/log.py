"""The move log's lines, the one way the screens get them: the notes of an event (as the
client's replica made them) in the order a person tells them, each as a sentence.

`event_lines` says one event; `history_lines` the events of a game so far, from the notes the
replica kept (kismet_tui.source.GameSource.applied_notes), for a screen that opens on a game
under way. No engine runs here: the replica has already played every event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable

from .common import NoteData, describe_common
from .dice import describe_dice
from .knock import describe_knock
from .race import describe_race

# A line of the move log: its sentence and the seat it is about (None: nobody's).
Line = tuple[str, "int | None"]
DESCRIBERS: dict[str, Callable[[NoteData, list[str]], str | None]] = {
    "dice": describe_dice, "race": describe_race, "knock": describe_knock}
LIMIT = 200  # the past a new screen writes: the log never shows more than a screen or two


def describe(ruleset: str, note: NoteData, names: list[str]) -> str | None:
    """One note as a plain sentence, or None for a note not worth a line. Names are
    player-written text: callers put the result into rich Text, never into markup."""
    return DESCRIBERS.get(ruleset, describe_common)(note, names)


def telling_order(notes: Sequence[NoteData]) -> list[NoteData]:
    """The notes of one event in the order a person tells them: a race round's end ("Every
    matching card has been grabbed.") after the reveals that say who took which card."""
    ended = [note for note in notes if isinstance(note, dict) and note.get("type") == "round_ended"]
    if not ended:
        return list(notes)
    rest = [note for note in notes if note not in ended]
    after = max((i + 1 for i, note in enumerate(rest) if note.get("type") == "revealed"), default=0)
    return rest[:after] + ended + rest[after:]


def event_lines(ruleset: str, notes: Sequence[NoteData], names: list[str]) -> list[Line]:
    """The lines one event's notes make, in telling order."""
    lines: list[Line] = []
    for note in telling_order(notes):
        words = describe(ruleset, note, names)
        if words:
            seat = note.get("seat")
            lines.append((words, seat if isinstance(seat, int) else None))
    return lines


def history_lines(ruleset: str, notes_per_event: Sequence[Sequence[NoteData]], names: list[str],
                  first_seq: int = 1, limit: int = LIMIT) -> list[Line]:
    """The lines of the events numbered `first_seq` and on (events count from 1, as their seq
    does), the last `limit` of them."""
    lines: list[Line] = []
    for notes in notes_per_event[max(0, first_seq - 1):]:
        lines.extend(event_lines(ruleset, notes, names))
        if len(lines) > 2 * limit:  # trim as we go: a long game stays cheap to catch up
            del lines[:-limit]
    return lines[-limit:]
