"""How many connections one peer address may hold on a front door (the ssh and web servers).

Each door counts its own peers: a browser tab or an ssh login is one player, and a crowd of
them from one address would each start a client process on this machine. Loopback is exempt
by default (the host's owner, benchmarks and tests connect from there).
"""

from __future__ import annotations

import ipaddress

DEFAULT_MAX_PER_ADDRESS = 8


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


class PeerCap:
    def __init__(self, limit: int = DEFAULT_MAX_PER_ADDRESS, exempt_loopback: bool = True):
        self.limit = limit
        self.exempt_loopback = exempt_loopback
        self.counts: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count one more connection from `address`, or say False (and count nothing)."""
        if not (self.exempt_loopback and is_loopback(address)):
            if self.limit > 0 and self.counts.get(address, 0) >= self.limit:
                return False
        self.counts[address] = self.counts.get(address, 0) + 1
        return True

    def release(self, address: str) -> None:
        left = self.counts.get(address, 0) - 1
        if left > 0:
            self.counts[address] = left
        else:
            self.counts.pop(address, None)

    def refusal(self) -> str:
        return (
            f"There are already {self.limit} players from your address at this host; "
            f"one of them must leave before another can come in."
        )
