"""The token bucket: the one rate limit the host's inputs are read under.

A bucket holds at most `burst` tokens and gains `per_second` of them a second, on a clock
the caller reads (the monotonic one), so a quiet while fills it back to its burst and no
more. The host's port spends one token per message (server/connection.py: a message
without one is dropped, and answered); the doors spend one per byte of a player's input
(server/doors/session_policy.py: input without tokens waits until there are some); chat
one per line (server/chat.py) and the records one per request (server/records_request.py),
each refused in words without one.
"""

from __future__ import annotations


class TokenBucket:
    """`burst` at once, then `per_second`, from `now` on."""

    __slots__ = ("burst", "per_second", "tokens", "refilled")

    def __init__(self, burst: float, per_second: float, now: float) -> None:
        self.burst = float(burst)
        self.per_second = float(per_second)
        self.tokens = self.burst
        self.refilled = now

    def refill(self, now: float) -> float:
        """The tokens at `now` (those gained since the last look added, up to the burst)."""
        self.tokens = min(self.burst, self.tokens + (now - self.refilled) * self.per_second)
        self.refilled = now
        return self.tokens

    def take(self, amount: float, now: float) -> bool:
        """Spend `amount` if the bucket holds it at `now`; else spend nothing and say False."""
        if self.refill(now) < amount:
            return False
        self.tokens -= amount
        return True

    def spend(self, amount: float) -> None:
        """Spend `amount` the caller has already seen was there (after `refill`)."""
        self.tokens -= amount

    def seconds_until(self, amount: float) -> float:
        """Seconds until the bucket holds `amount` (0: it does), as of its last refill."""
        return max(0.0, (amount - self.tokens) / self.per_second)

    def owe(self, amount: float, now: float) -> float:
        """Spend `amount` at `now` even beyond what the bucket holds; the seconds until the
        debt is paid back (0: at once), which the caller waits before going on."""
        self.refill(now)
        self.tokens -= amount
        return max(0.0, -self.tokens / self.per_second)
