"""Another game at the same table, in words: who wants one and whom the table waits for.

Read from the host's `table` message (its seats' `ready` marks) by the app, which starts
the owner's rematch, and by the game and end screens, which say who is waiting.
"""

from __future__ import annotations

from protocol.host_messages import TableShown


def rematch_people(table: TableShown | None) -> tuple[list[str], list[str]]:
    """After a game: (players who want another one, players the table waits for), by name.
    Bots are always ready and left out."""
    wants: list[str] = []
    waiting: list[str] = []
    for seat in (table.get("seats") or []) if table is not None else []:
        if not isinstance(seat, dict) or seat.get("bot"):
            continue
        (wants if seat.get("ready") else waiting).append(str(seat.get("name") or "?"))
    return wants, waiting


def and_words(names: list[str]) -> str:
    return (
        names[0]
        if len(names) == 1
        else ", ".join(names[:-1]) + " and " + names[-1]
        if names
        else ""
    )


def rematch_waiting(table: TableShown | None) -> str:
    """Whom another game waits for, as words ("Bo and Cy"), or "" if nobody."""
    return and_words(rematch_people(table)[1])


def rematch_line(table: TableShown | None) -> str:
    """One line for the end of a game: who wants another and whom it waits for."""
    if not table or table.get("state") == "playing":
        return ""
    wants, waiting = rematch_people(table)
    if not wants:
        return ""
    verb = "wants" if len(wants) == 1 else "want"
    line = f"{and_words(wants)} {verb} another game"
    return line + (f"; waiting for {and_words(waiting)} to press r." if waiting else ".")
