"""The one family of refusals: every "no" the engine, the wire, the client or a replay gives.

A refusal carries three things: `words` a player can read ("Not your turn: seat 1 is
rolling."), a `code` that names it on the wire (protocol/errors.py lists every code) and a
`kind` that says what sort of "no" it is, so a caller decides what to do from the kind alone
instead of re-deriving it (the bot runner asks again later for NOT_YET, and takes any other
rules refusal of a fresh choice for a bug). It lives in the engine's package because the engine
raises it, and imports nothing; protocol.ProtocolError, the client's RequestError and the
replay's NothingToSend derive from it (docs/protocol.md, "Error codes").
"""

from __future__ import annotations

from typing import Final, Literal

RefusalKind = Literal["malformed", "illegal_now", "not_yet", "not_yours", "limit", "unavailable"]

# The request or action does not have the right shape (a field the vocabulary does not name,
# a die showing 7, an option that is not a whole number): sending it again never helps.
MALFORMED: Final = "malformed"
# Well formed, but the rules refuse it as the game (or table) now stands: the box is filled,
# another player grabbed the card first, the table has a game running.
ILLEGAL_NOW: Final = "illegal_now"
# Refused only because it came too soon: time alone makes it acceptable (the dice roll in
# 2 s, the knock window is still open, the reaction floor [D20], hello first).
NOT_YET: Final = "not_yet"
# Somebody else's to do: another seat's turn, the table owner's, a player's and not a
# watcher's.
NOT_YOURS: Final = "not_yours"
# A limit was reached: too big, too many at once, the host or the table is full.
LIMIT: Final = "limit"
# Nothing to do with the request: the host (or a replay) cannot do it now (saving, shutting
# down, the connection is lost, the game's end is being saved).
UNAVAILABLE: Final = "unavailable"

KINDS: Final[tuple[RefusalKind, ...]] = (
    MALFORMED,
    ILLEGAL_NOW,
    NOT_YET,
    NOT_YOURS,
    LIMIT,
    UNAVAILABLE,
)


class Refusal(Exception):
    """A refusal with player-facing `words`, a wire `code` and a `kind` (see the module)."""

    def __init__(self, words: str, code: str, kind: RefusalKind) -> None:
        super().__init__(words)
        self.words = words
        self.code = code
        self.kind: RefusalKind = kind


def words_of(error: BaseException) -> str:
    """What to tell a player about `error`: a refusal's own words; for anything else (a lost
    connection's OSError) its message, or at least its name."""
    if isinstance(error, Refusal):
        return error.words
    return str(error) or type(error).__name__
