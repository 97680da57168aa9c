"""What `kismet`'s Invite (the lobby's `o`) asks of the host it opens, and what it is told.

The lobby asks first (kismet_tui/screens/invite.py): `Invitation.what_opens()` says what
would open, on which addresses, and who could come in; the player pastes friends' public
keys and/or chooses a one-evening password (an `InviteChoice`); `open` opens the doors and
returns the lines to share; `close` shuts them again. server/doors/open_up.py's OpenHost is the
one Invitation (the app knows it only by this Protocol: screens do not import the server).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class InviteChoice:
    keys: str = ""  # friends' public keys, one authorized_keys line each
    password: bool = False  # a password for the evening, for friends without a key
    join_port: bool = False  # the game's own port too (kismet-join): anyone, nothing asked


class InviteRefused(Exception):
    """The choice lets nobody in, or a pasted line is no key: `words` says what to change."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


class Invitation(Protocol):
    @property
    def is_open(self) -> bool: ...

    def what_opens(self) -> list[str]:
        """Lines saying what `open` would open, where, and who could come in."""
        ...

    async def open(self, choice: InviteChoice) -> list[str]:
        """Open as chosen (InviteRefused, or OSError, when it cannot); the lines to share."""
        ...

    async def close(self) -> None:
        """Shut every door `open` opened (friends playing over ssh are disconnected)."""
        ...
