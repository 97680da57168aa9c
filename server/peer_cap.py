"""The per-address cap: how many connections one peer address may hold, one rule for the
host's own port (server/connection.py) and for each door (server/doors/ssh.py, web.py).

Each counts its own peers: a game connection, an ssh login or a browser tab. Loopback is
exempt unless `--cap-loopback`: the host's own bots, players logged into this machine, the
benchmarks and the tests connect from there, and a door's session reaches the host over
loopback too (the host then counts it against the player's real address, by its pass). An
IPv4 address that comes as IPv6 (::ffff:a.b.c.d) counts as itself.
"""

from __future__ import annotations

import ipaddress

DEFAULT_MAX_PER_ADDRESS = 8  # kismet-host --max-per-address


def address_of(peer: object) -> str | None:
    """The IP address of a peer name as asyncio gives it, IPv4-mapped IPv6 unmapped."""
    if not isinstance(peer, tuple) or not peer:
        return None
    return unmapped(str(peer[0]))


def unmapped(address: str) -> str:
    """An IPv4 address that came as IPv6 (::ffff:a.b.c.d) as itself; any other as it is."""
    return address[7:] if address.startswith("::ffff:") else address


def is_loopback(address: str | None) -> bool:
    """`address` is a loopback address (127.0.0.0/8, ::1, with or without an IPv6 zone);
    False for None or anything that is no address (a name such as `localhost`)."""
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class PeerCap:
    """At most `limit` connections from one address (None or 0: no cap), loopback's only
    with `cap_loopback`; `counts` holds how many each capped address has now."""

    __slots__ = ("limit", "cap_loopback", "counts")

    def __init__(
        self, limit: int | None = DEFAULT_MAX_PER_ADDRESS, cap_loopback: bool = False
    ) -> None:
        self.limit = limit or None
        self.cap_loopback = cap_loopback
        self.counts: dict[str, int] = {}

    def exempts(self, address: str | None) -> bool:
        """`address` is never held to a share: no address at all, or loopback's unless it is
        capped (the fair shares of tables and of records requests ask the same)."""
        return address is None or (not self.cap_loopback and is_loopback(address))

    def applies_to(self, address: str | None) -> bool:
        """Connections from `address` are counted (and capped): a cap, and not exempt."""
        return self.limit is not None and not self.exempts(address)

    def admit(self, address: str | None) -> bool:
        """Count one more connection from `address`, or say False when it holds its share
        already (and count nothing). Give it back with `release(address)`."""
        if not self.applies_to(address):
            return True
        assert address is not None and self.limit is not None  # (applies_to says so)
        if self.counts.get(address, 0) >= self.limit:
            return False
        self.counts[address] = self.counts.get(address, 0) + 1
        return True

    def release(self, address: str | None) -> None:
        """One connection `admit` let in from `address` has ended."""
        if not self.applies_to(address):
            return
        assert address is not None
        left = self.counts.get(address, 0) - 1
        if left > 0:
            self.counts[address] = left
        else:
            self.counts.pop(address, None)

    def refusal(self) -> str:
        """The doors' words for a player past the cap (the host's port says its own, which
        names connections: server/connection.py `refuse_address`)."""
        return (
            f"There are already {self.limit} players from your address at this host; "
            f"one of them must leave before another can come in."
        )
