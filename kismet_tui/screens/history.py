"""The move log's past: the sentences of a game's events so far, rebuilt from its log.

A screen made for a game already under way (a late spectator, a player back after a restart,
a connection that missed events) replays the header's events through a fresh engine, collects
the notes each one gave, and writes their sentences. Only the last LIMIT lines are kept: the
move log never shows more than a screen or two of them anyway.
"""

from __future__ import annotations

from ..rules import apply_event, game_from_header
from .words import describe, telling_order

LIMIT = 200


def history_lines(header: dict, events: list[dict], names: list[str], first_seq: int = 1,
                  limit: int = LIMIT) -> list[tuple[str, int | None]]:
    """(sentence, seat it is about) for the notes of the events numbered `first_seq` and on
    (events count from 1, as their seq does), the last `limit` of them. A log that does not
    replay gives what it gave up to that point: the log is a courtesy, the game goes on."""
    ruleset = header["ruleset"]
    try:
        game = game_from_header(header)
    except Exception:  # a header that does not start a game: no past to show
        return []
    lines: list[tuple[str, int | None]] = []
    for number, event in enumerate(events, start=1):
        try:
            notes = apply_event(game, event)
        except Exception:  # (IllegalAction or a malformed record) keep what we have
            break
        if number < first_seq:
            continue
        for note in telling_order(notes):
            words = describe(ruleset, note, names)
            if words:
                lines.append((words, note.get("seat")))
        if len(lines) > 2 * limit:  # trim as we go: a long game stays cheap to rebuild
            del lines[:-limit]
    return lines[-limit:]
