"""Door passes: how the ssh and web doors tell the host who a session's player really is.

A door session's `kismet-join` runs on this machine and reaches the host over loopback, so
the host alone would see every ssh and browser player as 127.0.0.1. The door, in the host's
own process, issues a pass for the session before it starts the client: a random secret the
client is handed in its environment (`KISMET_DOOR_PASS`) and offers in its `hello`. The host
looks the secret up here and learns the player's real address (for the per-address cap) and
what proves them (their ssh key, or the browser's secret), for their fair share of tables.
A remote client cannot forge a pass: it is never shown to anybody, and it is revoked when
the session ends.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from kismet_tui.door_env import PASS_VARIABLE

# The variable the client reads it from (kismet_tui/door_env.py, shared with the client, names it).
ENVIRONMENT_NAME = PASS_VARIABLE


@dataclass(frozen=True)
class DoorPass:
    """Who a door session's player is: `address`, their real peer address; `identity`, what
    proves them ("ssh-key SHA256:...", "ssh-code ...", "web ..."), or "" when nothing does."""

    door: str  # "ssh" or "web"
    address: str
    identity: str = ""
    # Called when the host answers the session's table list (its lobby is being drawn: the
    # end of its start-up, server/doors/door_starts.py).
    listed: Callable[[], None] | None = field(default=None, compare=False, repr=False)


class DoorPasses:
    """The passes issued for the door sessions that are open now."""

    def __init__(self) -> None:
        self._passes: dict[str, DoorPass] = {}

    def issue(
        self, door: str, address: str, identity: str = "", listed: Callable[[], None] | None = None
    ) -> str:
        """A new secret for one session; hand it to the client in ENVIRONMENT_NAME."""
        secret = secrets.token_urlsafe(24)
        self._passes[secret] = DoorPass(door, address, identity, listed)
        return secret

    def find(self, secret: str | None) -> DoorPass | None:
        """The pass behind `secret`, or None for no secret or one this host never issued."""
        if not secret:
            return None
        return self._passes.get(secret)

    def revoke(self, secret: str) -> None:
        """The session is over: its secret opens nothing any more."""
        self._passes.pop(secret, None)

    def __len__(self) -> int:
        return len(self._passes)
