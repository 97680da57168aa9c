"""Error codes of the wire, each with words a player can read when no better words exist,
and the kind of refusal it is (kismet_tui/rules/refusal.py)."""

from __future__ import annotations

from kismet_tui.rules.refusal import (
    ILLEGAL_NOW,
    LIMIT,
    MALFORMED,
    NOT_YET,
    NOT_YOURS,
    UNAVAILABLE,
    Refusal,
    RefusalKind,
)

from .host_messages import ErrorMessage

# code -> default words. The host may send more precise words with the same code.
ERRORS = {
    "bad_frame": "That message could not be read.",
    "too_big": "That message is too big.",
    "bad_message": "That message is not one the host understands.",
    "version": "This host speaks a different version of the protocol. Please update.",
    "hello_first": "Please say hello first.",
    "name_taken": "Somebody here already goes by that name. Please pick another name.",
    "full": "The host is full right now. Please try again later.",
    "slow_down": "Too many messages at once. Please slow down.",
    "no_table": "There is no such table.",
    "not_at_table": "You are not at a table.",
    "already_at_table": "You are already at a table. Leave it first.",
    "table_full": "That table has no free seat.",
    "not_owner": "Only the table's owner can do that.",
    "not_ready": "Not everyone is ready yet.",
    "bad_options": "Those table options are not right.",
    "no_game": "No game is running at this table.",
    "playing": "A game is running at this table.",
    "not_seated": "You are watching, not playing: only players act.",
    "bad_action": "That move is not one this game has.",
    "illegal": "That move is not allowed.",
    "too_quick": "Too quick: the dice were only just shown. Look first, then move.",
    "game_ending": "This game is over: its end is being saved.",
    "no_bots": "This host does not run bots.",
    "idle": "Closed after a long silence.",
    "replaced": "You connected again from somewhere else.",
    "shutdown": "The host is shutting down.",
    "cannot_save": "The host cannot save this game right now. Play goes on when it can.",
    "cannot_start": "The game could not start. The table stays in the lobby.",
    "removed": "The table's owner removed you from the table.",
    "internal": "Something went wrong on the host. Sorry.",
    "no_records": "The records cannot be read on this host right now.",
    "chat_limit": "That is a lot of chat at once: wait a moment, then say it again.",
    "chat_muted": "The table's owner has turned off the watchers' chat: only the players can talk here now.",
}


# code -> the kind of refusal it is. `illegal` is the engine's: its kind is the engine's own
# (the host sends it beside the code), ILLEGAL_NOW when none is given.
KINDS: dict[str, RefusalKind] = {
    "bad_frame": MALFORMED,
    "too_big": LIMIT,
    "bad_message": MALFORMED,
    "version": MALFORMED,
    "hello_first": NOT_YET,
    "name_taken": ILLEGAL_NOW,
    "full": LIMIT,
    "slow_down": LIMIT,
    "no_table": ILLEGAL_NOW,
    "not_at_table": ILLEGAL_NOW,
    "already_at_table": ILLEGAL_NOW,
    "table_full": LIMIT,
    "not_owner": NOT_YOURS,
    "not_ready": NOT_YET,
    "bad_options": MALFORMED,
    "no_game": ILLEGAL_NOW,
    "playing": ILLEGAL_NOW,
    "not_seated": NOT_YOURS,
    "bad_action": MALFORMED,
    "illegal": ILLEGAL_NOW,
    "too_quick": NOT_YET,
    "game_ending": UNAVAILABLE,
    "no_bots": UNAVAILABLE,
    "idle": UNAVAILABLE,
    "replaced": UNAVAILABLE,
    "shutdown": UNAVAILABLE,
    "cannot_save": UNAVAILABLE,
    "cannot_start": UNAVAILABLE,
    "removed": NOT_YOURS,
    "internal": UNAVAILABLE,
    "no_records": UNAVAILABLE,
    "chat_limit": LIMIT,
    "chat_muted": NOT_YOURS,
}


def kind_of(code: str, sent: object = None) -> RefusalKind:
    """The kind of a refusal with this code: for `illegal`, the kind the host sent beside it
    when it is one; otherwise the code's own (UNAVAILABLE for a code this side does not know,
    say a newer host's)."""
    if code == "illegal" and sent == NOT_YET:
        return NOT_YET
    if code == "illegal" and sent == NOT_YOURS:
        return NOT_YOURS
    return KINDS.get(code, UNAVAILABLE)


class ProtocolError(Refusal):
    """A refusal to send back as an `error` message: a code from ERRORS and plain words."""

    def __init__(
        self,
        code: str,
        words: str | None = None,
        fatal: bool = False,
        kind: RefusalKind | None = None,
    ) -> None:
        if code not in ERRORS:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(words or ERRORS[code], code, kind or KINDS[code])
        # fatal: the connection is closed after the error is sent.
        self.fatal = fatal
        # The request this refusal answers, when it is known before the message is parsed
        # (a body refused for a limit still names its `id`: protocol.framing).
        self.re: int | None = None

    def message(self, re: int | None = None) -> ErrorMessage:
        """The `error` message that says this refusal: code, kind and words, and `re` when
        it answers a request. The host builds every error it sends here, so none lacks a
        kind, whoever it goes to (the sender or a table's other members)."""
        message: ErrorMessage = {
            "type": "error",
            "code": self.code,
            "kind": self.kind,
            "words": self.words,
        }
        if re is not None:
            message["re"] = re
        return message


def error_message(
    code: str, words: str | None = None, re: int | None = None, kind: RefusalKind | None = None
) -> ErrorMessage:
    """An `error` message (docs/protocol.md, "Error codes"): the code, its kind (the code's
    own unless given: the engine's refusals say theirs), the words (the code's default
    unless given), and `re` when it answers a request."""
    return ProtocolError(code, words, kind=kind).message(re)
