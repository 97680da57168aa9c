"""What a player who leaves a running game is told about their seat: how long it waits.

`kismet`'s own host pauses a game with bots while its player is away (server/table_share.py):
it waits for ever, offered in the lobby. Anywhere else the figures are the host's rules
(protocol/leavers.py): with another player at the table, the seat waits the game's away limit,
after which the host plays it and its player ranks last; with nobody else, the table closes
once that time (an hour at most, a minute with bots) has passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.host_messages import TableShown
from protocol.leavers import away_limit_ms, closes_after_ms


def duration(ms: int) -> str:
    """A limit in the words a player reads: 45 s, 2 min, 1 h 30 min."""
    seconds = (ms + 999) // 1000
    if seconds < 120:
        return f"{seconds} s"
    minutes = (seconds + 59) // 60
    if minutes < 120:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def seat_waits_words(
    table: TableShown, header: Mapping[str, Any], me: int | None, where: str, paused: bool
) -> str:
    """The words for leaving `table` (its last `table` message) while its game runs."""
    if paused:
        return f"Back in the lobby. The game is paused: enter on {where} goes back to it."
    seats = table.get("seats") or []
    others_here = any(
        seat.get("connected") and not seat.get("bot") and seat.get("client_id") != me
        for seat in seats
    )
    if others_here:
        limit = duration(away_limit_ms(header))
        return (
            f"Back in the lobby. Your seat waits {limit}: sit at {where} again by then, "
            "or the host plays it and you rank last."
        )
    humans = sum(1 for seat in seats if not seat.get("bot"))
    closes = duration(closes_after_ms(header, humans, any(seat.get("bot") for seat in seats)))
    return (
        f"Back in the lobby. Your seat waits {closes}: sit at {where} again by then, "
        "or the game closes and counts as left."
    )
