"""The messages a client may send, and their validation.

`parse_client(message)` checks one decoded frame against the message's schema (field types,
lengths, ranges), fills defaults, cleans names and chat, and returns a new dict; anything
malformed raises ProtocolError('bad_message') with words that say what was wrong. Unknown
fields are ignored, so later versions can add optional fields. Host messages are built with
plain dicts by the host; `request_id` reads the `id` every request may carry, which the reply
carries back as `re`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TypeGuard, cast

from kismet_tui.rules import GAMES

from . import limits
from .errors import ProtocolError
from .plain import Plain
from .text import clean_chat, clean_name

RULESETS = GAMES  # the games, declared once by the engine (kismet_tui/rules/__init__.py)
# The bot levels every game has (kismet_tui/bots POLICIES; tests/test_protocol_conformance.py
# checks the two agree). An unknown one is a field out of its range: `bad_message`.
BOT_LEVELS = ("random", "greedy", "easy", "medium", "hard")
MAX_LEVEL = 16


def _bad(words: str) -> ProtocolError:
    return ProtocolError("bad_message", words)


# A field checker: (the value as sent, the field's name) -> the value to keep, or raise.
Checker = Callable[[object, str], object]


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def request_id(message: object) -> int | None:
    """The message's valid `id`, or None."""
    if isinstance(message, dict):
        rid = message.get("id")
        if _is_int(rid) and 0 <= rid <= limits.MAX_REQUEST_ID:
            return rid
    return None


# ---- field checkers: (value, field name) -> cleaned value, or raise ------------------------


def integer(low: int, high: int) -> Callable[[object, str], int]:
    def check(value: object, field: str) -> int:
        if not _is_int(value):
            raise _bad(f"'{field}' must be a whole number.")
        if not low <= value <= high:
            raise _bad(f"'{field}' must be between {low} and {high}.")
        return value

    return check


def text(max_len: int, clean: Callable[[str], str] | None = None) -> Callable[[object, str], str]:
    def check(value: object, field: str) -> str:
        if not isinstance(value, str):
            raise _bad(f"'{field}' must be text.")
        if len(value) > max_len:
            raise _bad(f"'{field}' is too long (at most {max_len} characters).")
        return clean(value) if clean else value

    return check


def name_field(value: object, field: str) -> str:
    """A player's name: cleaned (protocol.text), then cut to MAX_NAME. Clients send up to
    four times that (a long login name is cut, not refused); more is refused in words."""
    if not isinstance(value, str):
        raise _bad("A name must be text.")
    if len(value) > limits.MAX_NAME * 4:
        raise _bad(f"A name is at most {limits.MAX_NAME} characters; that one has {len(value)}.")
    return clean_name(value)


def chat_field(value: object, field: str) -> str:
    """One chat line, cleaned; over MAX_CHAT characters it is refused in words, never cut."""
    if not isinstance(value, str):
        raise _bad("A chat line must be text.")
    cleaned = clean_chat(value) if len(value) <= limits.MAX_CHAT * 4 else value
    if len(cleaned) > limits.MAX_CHAT:
        raise _bad(
            f"A chat line is at most {limits.MAX_CHAT} characters; that one has {len(cleaned)}."
        )
    return cleaned


def boolean(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(f"'{field}' must be true or false.")
    return value


def optional(checker: Checker) -> Checker:
    def check(value: object, field: str) -> object:
        return None if value is None else checker(value, field)

    return check


def check_body(message: Plain, read: Collection[str]) -> None:
    """The limits on every field of a client body (docs/protocol.md, "Framing"), for the
    fields the host did not read: text keys only, texts and keys of at most MAX_TEXT_BYTES,
    nesting of at most MAX_DEPTH levels (the body is the first), whole numbers within
    MIN_INT..MAX_INT, no floats, no binary data. The fields in `read` (the message's own,
    `type` and `id`) were checked by their checkers, each at least as strictly (entropy, the
    only binary value, among them) but for a text's bytes, which are counted here, so a
    field the host ignores carries no more than one it reads."""
    for key, value in message.items():
        if not isinstance(key, str):
            raise _bad("A message may have only text keys, not binary ones.")
        if key in read:
            if isinstance(value, str):  # (its checker counted characters, not bytes)
                _text_within(value, key, None)
            continue
        if len(key) * 4 > limits.MAX_TEXT_BYTES and len(key.encode()) > limits.MAX_TEXT_BYTES:
            raise _bad(f"A message holds a key longer than {limits.MAX_TEXT_BYTES} bytes.")
        _within_limits(value, key, 2, None)


def _within_limits(value: object, field: str, level: int, max_chars: int | None) -> object:
    """`value` (at nesting `level` if it is a map or a list) within the body limits, and its
    texts (keys too) within `max_chars` characters if given; a copy of it."""
    if isinstance(value, str):
        _text_within(value, field, max_chars)
        return value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if not limits.MIN_INT <= value <= limits.MAX_INT:
            raise _bad(f"'{field}' holds a number too large for the host.")
        return value
    if isinstance(value, (list, dict)) and level > limits.MAX_DEPTH:
        raise _bad(
            f"'{field}' is nested too deeply (at most {limits.MAX_DEPTH} levels, "
            f"the message itself the first)."
        )
    if isinstance(value, list):
        return [_within_limits(item, field, level + 1, max_chars) for item in value]
    if isinstance(value, dict):
        copy = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _bad(f"'{field}' may have only text keys, not binary ones.")
            _text_within(key, field, max_chars)
            copy[key] = _within_limits(item, field, level + 1, max_chars)
        return copy
    if isinstance(value, float):
        raise _bad(f"'{field}' holds a fraction: the host takes only whole numbers.")
    if isinstance(value, bytes):
        raise _bad(f"'{field}' holds binary data: the host takes only text there.")
    raise _bad(f"'{field}' may hold only maps, lists, text, whole numbers and true/false.")


def _text_within(text: str, field: str, max_chars: int | None) -> None:
    if len(text) * 4 <= limits.MAX_TEXT_BYTES and (max_chars is None or len(text) <= max_chars):
        return  # (the common case, at the cost of two comparisons)
    if max_chars is not None and len(text) > max_chars:
        raise _bad(f"'{field}' holds a text longer than {max_chars} characters.")
    if len(text.encode()) > limits.MAX_TEXT_BYTES:
        raise _bad(f"'{field}' holds a text longer than {limits.MAX_TEXT_BYTES} bytes.")


def plain_data(value: object, field: str) -> object:
    """A copy of a field of the body: maps with text keys, lists, text, whole numbers,
    booleans and nil (what game actions and options are made of), within the body limits
    (check_body), each text and key in it at most MAX_VALUE_TEXT characters."""
    return _within_limits(value, field, 2, limits.MAX_VALUE_TEXT)


def plain_map(value: object, field: str) -> Plain:
    if not isinstance(value, dict):
        raise _bad(f"'{field}' must be a map.")
    return cast(Plain, plain_data(value, field))  # (a map comes back a map, text keys checked)


def action_map(value: object, field: str) -> Plain:
    action = plain_map(value, field)
    if not isinstance(action.get("type"), str):
        raise _bad("An action must be a map with a 'type'.")
    return action


def options_map(value: object, field: str) -> Plain:
    if value is None:
        return {}
    options = plain_map(value, field)
    if len(options) > limits.MAX_OPTIONS:
        raise _bad(f"'{field}' has too many entries.")
    return options


def bots_field(value: object, field: str) -> list[str]:
    """A number of bots (default level) or a list of levels, one per bot."""
    if _is_int(value):
        return ["greedy"] * integer(0, limits.MAX_BOTS_PER_TABLE)(value, field)
    if isinstance(value, list):
        if len(value) > limits.MAX_BOTS_PER_TABLE:
            raise _bad(f"At most {limits.MAX_BOTS_PER_TABLE} bots per table.")
        levels = [text(MAX_LEVEL, clean_chat)(level, field) for level in value]
        for level in levels:
            if level not in BOT_LEVELS:
                raise _bad(
                    f"There is no bot level '{level}'. The levels are: "
                    f"{', '.join(sorted(BOT_LEVELS))}."
                )
        return levels
    raise _bad(f"'{field}' must be a number of bots or a list of bot levels.")


def int_list(max_len: int) -> Callable[[object, str], list[int]]:
    def check(value: object, field: str) -> list[int]:
        if not isinstance(value, list) or len(value) > max_len:
            raise _bad(f"'{field}' must be a list of at most {max_len} numbers.")
        return [integer(0, limits.MAX_REQUEST_ID)(item, field) for item in value]

    return check


def entropy_bytes(value: object, field: str) -> bytes:
    """A player's 16 random bytes for the next game's chance (protocol version 2)."""
    if not isinstance(value, (bytes, bytearray)) or len(value) != limits.ENTROPY_BYTES:
        raise _bad(f"'{field}' must be {limits.ENTROPY_BYTES} random bytes.")
    return bytes(value)


REQUIRED = object()

RECORDS_VIEWS = ("leaderboard", "recent", "player", "best")  # server/records/queries.py
MAX_RECORDS_PAGE = 10_000


def one_of(choices: tuple[str, ...]) -> Callable[[object, str], str]:
    def check(value: object, field: str) -> str:
        if not isinstance(value, str) or value not in choices:
            raise _bad(f"'{field}' must be one of: {', '.join(choices)}.")
        return value

    return check


def player_ref(value: object, field: str) -> str:
    """A records player id: 32 hex digits, or a bot's "bot:LEVEL"."""
    if isinstance(value, str) and (
        (len(value) == 32 and all(c in "0123456789abcdef" for c in value))
        or (value.startswith("bot:") and 4 < len(value) <= 4 + MAX_LEVEL and value[4:].isalpha())
    ):
        return value
    raise _bad(f"'{field}' must be a player's id as the records gave it.")


# type -> {field: (checker, default)}; default REQUIRED means the field must be present.
CLIENT_MESSAGES: dict[str, dict[str, tuple[Checker, object]]] = {
    "hello": {
        "version": (integer(0, 2**31 - 1), REQUIRED),
        "name": (name_field, REQUIRED),
        "token": (optional(text(limits.MAX_TOKEN)), None),
        "door": (optional(text(limits.MAX_DOOR_PASS)), None),
        # The client's saved secret for this host: what the records know the player by.
        "player_key": (optional(text(limits.MAX_TOKEN)), None),
    },
    # `changes`: pushes after the answer carry only what changed (`tables_changed`).
    "list_tables": {"changes": (boolean, False)},
    "create_table": {
        "ruleset": (one_of(RULESETS), REQUIRED),
        "options": (options_map, None),
        "bots": (bots_field, []),
    },
    "join_table": {
        "table": (integer(0, limits.MAX_REQUEST_ID), REQUIRED),
        "spectator": (boolean, False),
    },
    "leave": {},
    "ready": {"ready": (boolean, True), "entropy": (optional(entropy_bytes), None)},
    "start": {"entropy": (optional(entropy_bytes), None)},
    "reorder": {"order": (int_list(16), REQUIRED)},
    "remove": {"seat": (integer(0, 15), REQUIRED)},
    "act": {"action": (action_map, REQUIRED)},
    "here": {},
    "hand_to_bot": {"seat": (integer(0, 15), REQUIRED)},
    "chat": {"text": (chat_field, REQUIRED)},
    "mute_watchers": {"muted": (boolean, True)},
    "digest": {
        "seq": (integer(0, 2**40), REQUIRED),
        "digest": (text(limits.MAX_DIGEST), REQUIRED),
    },
    "resync": {},
    "ping": {},
    "records": {
        "view": (one_of(RECORDS_VIEWS), REQUIRED),
        "ruleset": (optional(one_of(RULESETS)), None),
        "player": (optional(player_ref), None),  # the player view: default the asker
        "page": (integer(0, MAX_RECORDS_PAGE), 0),
    },
}


# type -> the fields parse_client reads in it: its own, and `type` and `id` (every message's).
READ = {kind: frozenset(schema) | {"type", "id"} for kind, schema in CLIENT_MESSAGES.items()}


def parse_client(message: object) -> Plain:
    """A validated copy of one client message, defaults filled, or ProtocolError."""
    if not isinstance(message, dict):
        raise _bad("A message must be a map with a type.")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise _bad("A message must say its type.")
    schema = CLIENT_MESSAGES.get(kind)
    if schema is None:
        shown = clean_chat(kind[:32])
        raise _bad(f"The host does not know the message type '{shown}'.")
    rid = request_id(message)
    if rid is None and "id" in message:
        raise _bad(f"'id' must be a whole number from 0 to {limits.MAX_REQUEST_ID}.")
    parsed: Plain = {"type": kind, "id": rid}
    for field, (checker, default) in schema.items():
        if field in message:
            parsed[field] = checker(message[field], field)
        elif default is REQUIRED:
            raise _bad(f"A '{kind}' message needs '{field}'.")
        else:
            parsed[field] = list(default) if isinstance(default, list) else default
    # The fields it reads have said what was wrong with them in their own words; the body
    # limits hold for every other field too.
    check_body(message, READ[kind])
    return parsed
