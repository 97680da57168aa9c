"""The reaction floor [D20]: no race grab or knock before the dice could have been seen.

A grab sent blind, just before the throw, reaches the host a moment after it and would count
first (issue 20: 37 of 64 rounds against an instant client). So the host remembers, for the
table's latest throw, when it wrote the event that showed the dice to each connection, and
refuses a grab (race) or a knock (knock) that arrives sooner than REACTION_FLOOR_MS after
that, with words and at no cost: nothing is stamped, so the log, and a replay of it, never
hears of it. This is the host's timing, not a rule of the engine: it depends on when each
connection was written to, which no log holds.

A connection that did not get the throw event itself (it came back after the throw and got
the whole game instead) counts from when it opened, which is before it could see the dice.
Times are the host's monotonic clock; an action's arrival is when its frame was read.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from protocol import limits
from protocol.errors import ProtocolError

from .link import Link

# An event's notes as the engine made them (each game's TypedDicts, kismet_tui/rules/*_types.py).
Notes = Sequence[Mapping[str, object]]

FLOOR_S = limits.REACTION_FLOOR_MS / 1000
# The actions that answer a throw, per game, and the verb the words use.
ANSWERS_A_THROW = {("race", "grab"): "grab", ("knock", "knock"): "knock"}
# The games where that is so: only their tables note when each member was shown a throw.
THROW_ANSWERED = frozenset(ruleset for ruleset, _ in ANSWERS_A_THROW)


def shows_a_throw(notes: Notes) -> bool:
    """Whether an event's notes say it threw the dice (both games note `rolled`)."""
    for note in notes:  # (a loop, not any() over a generator: asked for every event)
        if isinstance(note, dict) and note.get("type") == "rolled":
            return True
    return False


class ThrowShown:
    """When the table's latest throw was written to each member's connection."""

    __slots__ = ("at", "written", "refused")

    def __init__(self) -> None:
        self.at = 0.0  # when the host published it (0: no throw since this host started)
        self.written: dict[Link, float] = {}
        self.refused = 0  # actions refused as too quick at this table (tests read it)

    def begin(self) -> None:
        """A new throw is being sent: the old one's times no longer count."""
        self.at = time.monotonic()
        self.written = {}

    def wrote_to(self, conn: Link) -> None:
        self.written[conn] = time.monotonic()

    def shown_to(self, conn: Link) -> float:
        written = self.written.get(conn)
        if written is not None:
            return written
        return max(self.at, conn.opened)  # came after the throw: saw it only once connected

    def check(self, ruleset: str, action: Mapping[str, object], conn: Link) -> None:
        """Refuse, with words, an answer to the throw that came before it could be seen."""
        verb = ANSWERS_A_THROW.get((ruleset, str(action.get("type"))))
        if verb is None or not self.at:
            return
        shown = self.shown_to(conn)
        since = conn.last_heard - shown  # its frame was read then
        if since < FLOOR_S:
            self.refused += 1
            raise ProtocolError(
                "too_quick",
                f"Too quick: the dice were shown "
                f"{max(since, 0):.2f} s ago. Look first, then {verb}.",
            )
