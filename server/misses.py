"""The count behind idle seats (docs/rules.md [D31]): the turns the host played in a row for
each seat whose player is here. A table keeps one (server/table.py) and marks a seat idle
when it reaches MISSES_TO_IDLE; server/idle.py has the requests around it.

Race has no turns: there a miss is a round that ran out of time (cards still to take) with
no grab and no pass of the seat's since the dice showed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kismet_tui.rules import HOST

MISSES_TO_IDLE = 2
# The notes that say the host played for a seat (dice, knock, knock's pre-lay).
PLAYED_FOR = ("timeout", "default_play", "prelay_defaulted")


class Misses:
    """Turns the host played in a row for each seat whose player is here."""

    __slots__ = ("count", "acted")

    def __init__(self) -> None:
        self.count: dict[int, int] = {}
        self.acted: set[int] = set()  # race: the seats that moved since the dice showed

    def clear(self) -> None:
        self.count.clear()
        self.acted.clear()

    def see(
        self,
        seat: int,
        action: Mapping[str, Any],
        notes: Iterable[Mapping[str, Any]],
        away: Sequence[bool],
    ) -> list[int]:
        """One stamped event: a player's own move clears their count; a timeout adds one to
        each seat it played for that is not away. The seats that just reached the limit."""
        if seat != HOST:
            self.count.pop(seat, None)
            self.acted.add(seat)
            return []
        if action.get("type") == "back":
            self.count.pop(action.get("seat", HOST), None)
            return []
        if action.get("type") != "timeout":
            return []
        missed: list[int] = []
        for note in notes:
            who = note.get("seat")
            if note.get("type") in PLAYED_FOR and isinstance(who, int):
                missed.append(who)
            elif note.get("type") == "round_ended" and note.get("why") == "time_up":
                missed += [s for s in range(len(away)) if s not in self.acted]
            elif note.get("type") == "rolled" and "round" in note:  # race: a new round
                self.acted.clear()
        reached = []
        for who in missed:
            if not away[who]:
                self.count[who] = self.count.get(who, 0) + 1
                if self.count[who] >= MISSES_TO_IDLE:
                    reached.append(who)
        return reached
