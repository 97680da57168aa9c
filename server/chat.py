"""Chat at a table: how much each person may say, the watchers' shared share, the owner's mute.

The connection's rate limit (server/connection.py) lets one connection send 40 messages a
second, which a table's players cannot read, let alone eight connections' worth. So chat has
budgets of its own, kept by the table (`TableChat`), each a token bucket on the monotonic
clock:
- every person at the table, seated or watching, has their own (protocol/limits.py
  CHAT_BURST lines at once, then one every CHAT_EVERY_S), kept by their player token, so a
  new connection of the same player does not start afresh;
- the watchers share one more between them all (WATCHERS_CHAT_BURST, then one every
  WATCHERS_CHAT_EVERY_S): however many watchers flood, the players hear at most that much of
  them, and a player's line never waits behind theirs, for a player's budget is theirs alone;
- the table's owner may mute the watchers altogether (`watchers_muted`).
A line over a budget is refused to its sender in words (`chat_limit`, `chat_muted`) and
reaches nobody. A line that passes still meets the slow-reader rule on its way out: a
connection that has fallen behind is skipped chat lines, not game events
(server/connection.py `send_chat`).
"""

from __future__ import annotations

import math

from protocol import limits
from protocol.errors import ProtocolError

from .token_bucket import TokenBucket

# Budgets of people who said nothing for a while are full again, the same as no budget at all:
# past this many, those are forgotten (so a table's memory does not grow with its visitors).
KEEP_BUDGETS = 64


def budget(burst: int, every_s: float, now: float) -> TokenBucket:
    """`burst` lines at once, refilled one every `every_s` seconds."""
    return TokenBucket(burst, 1 / every_s, now)


def wait_s(budget: TokenBucket) -> int:
    """Whole seconds until the next line fits (at least 1); call after refill."""
    return max(1, math.ceil(budget.seconds_until(1)))


class TableChat:
    """One table's chat budgets and whether its watchers are muted."""

    __slots__ = ("own", "watchers", "watchers_muted")

    def __init__(self) -> None:
        self.own: dict[str, TokenBucket] = {}  # player token -> their own budget
        self.watchers: TokenBucket | None = None  # the watchers' shared one, made when first used
        self.watchers_muted = False

    def take(self, token: str, seated: bool, now: float) -> None:
        """Count one line of `token`'s (a seated player, or a watcher); raise the refusal in
        words when it may not be said now, and then count nothing."""
        if not seated and self.watchers_muted:
            raise ProtocolError("chat_muted")
        own = self._own(token, now)
        if own.refill(now) < 1:
            raise ProtocolError(
                "chat_limit",
                f"You have said {limits.CHAT_BURST} lines in a few "
                f"seconds: your next line can go in {wait_s(own)} s.",
            )
        if not seated:
            shared = self.watchers
            if shared is None:
                shared = self.watchers = budget(
                    limits.WATCHERS_CHAT_BURST, limits.WATCHERS_CHAT_EVERY_S, now
                )
            if shared.refill(now) < 1:
                raise ProtocolError(
                    "chat_limit",
                    f"The watchers here have said a lot just now (all "
                    f"together they may say {limits.WATCHERS_CHAT_BURST} lines, then one "
                    f"every {limits.WATCHERS_CHAT_EVERY_S:g} s, so the players are always "
                    f"heard): try again in {wait_s(shared)} s.",
                )
            shared.spend(1)
        own.spend(1)

    def _own(self, token: str, now: float) -> TokenBucket:
        found = self.own.get(token)
        if found is None:
            if len(self.own) >= KEEP_BUDGETS:
                self.own = {
                    key: kept for key, kept in self.own.items() if kept.refill(now) < kept.burst
                }
            found = self.own[token] = budget(limits.CHAT_BURST, limits.CHAT_EVERY_S, now)
        return found
