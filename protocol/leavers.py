"""Who left a game for good, read from its log's events: the seats the records rank last.

The host stamps `away` and `back` (seat -1) as a seat's player drops and returns. A seat left
the game for good when it is away at the game's end and

- the game finished and the seat had been away, without coming back, for at least the game's
  away limit (`away_limit_ms`, 30000 when the options name none): the host played its turns
  after that limit, so its player was not there to play; or
- the game never finished: the host closed it because nobody human was left at the table
  (docs/rules.md [D23]); everyone away then had left it.

The records (server/records/index.py) and the end box (kismet_tui/screens/end.py) both ask
here, so what a player reads at the end is what the ratings did.

    leavers = Leavers(header)
    for event in events: leavers.see(event)
    leavers.left(finished=True)     # [2]: the seats that left, in order
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HOST_SEAT = -1  # the seat of host stamps (kismet_tui.rules.base.HOST)
DEFAULT_AWAY_LIMIT_MS = 30_000  # every game's default away limit (docs/rules.md)
ALONE_AWAY_LIMIT_MS = 3_600_000  # an hour: the longest away limit with no other human
BOTS_ALONE_CLOSE_MS = 60_000  # a running game left to its bots closes after a minute


def away_limit_ms(header: Mapping[str, Any]) -> int:
    """The game's away limit, from its header's options (the default for a bad one)."""
    options = header.get("options")
    limit = options.get("away_limit_ms") if isinstance(options, Mapping) else None
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        return DEFAULT_AWAY_LIMIT_MS
    return limit


def closes_after_ms(header: Mapping[str, Any], humans_seated: int, bots: bool) -> int:
    """How long a running game whose humans have all left stays open (docs/rules.md [D23];
    server/table_share.py): its away limit, an hour at most with no other human seated, a
    minute at most with bots at it. The lobby tells a leaver the same figure."""
    limit = away_limit_ms(header)
    if humans_seated < 2:
        limit = min(limit, ALONE_AWAY_LIMIT_MS)
    return min(limit, BOTS_ALONE_CLOSE_MS) if bots else limit


class Leavers:
    """Follows a game's events (`see` each, in order) and says who left it for good."""

    __slots__ = ("seats", "limit_ms", "away_since", "last_t")

    def __init__(self, header: Mapping[str, Any]) -> None:
        names = header.get("seats")
        self.seats = len(names) if isinstance(names, list) else 0
        self.limit_ms = away_limit_ms(header)
        self.away_since: dict[int, int] = {}
        t0 = header.get("t0")
        self.last_t = t0 if isinstance(t0, int) else 0

    def see(self, event: Mapping[str, Any]) -> None:
        t = event.get("t")
        if isinstance(t, int) and not isinstance(t, bool):
            self.last_t = max(self.last_t, t)
        action = event.get("action")
        if event.get("seat") != HOST_SEAT or not isinstance(action, Mapping):
            return
        seat = action.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            return
        if action.get("type") == "away":
            self.away_since.setdefault(seat, self.last_t)
        elif action.get("type") == "back":
            self.away_since.pop(seat, None)

    def left(self, finished: bool) -> list[int]:
        """The seats whose players left for good, lowest first (see the module's words)."""
        return sorted(
            seat
            for seat, since in self.away_since.items()
            if not finished or self.last_t - since >= self.limit_ms
        )
