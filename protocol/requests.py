"""The messages a client may send, declared once, and their check.

Each request is a TypedDict with a `Literal` `type` and an `Annotated` spec per field (its
kind, from protocol/declared.py or below, and a `Default` where it has one): the host's
handlers read them, the client builds them, and `parse_client` is derived from them by the
same machinery as the games' actions (protocol/declared.py). A field with a default is
NotRequired (a client may leave it out) and `parse_client` fills it in; the declared type
is the value as the host keeps it (`bots` as a list of levels, though a number of bots is
taken too).

`parse_client(message)` checks one decoded frame against its declaration (field types,
lengths, ranges), fills defaults, cleans names and chat, and returns a new map; anything
malformed raises ProtocolError('bad_message') with words that say what was wrong. Unknown
fields are ignored, so later versions can add optional fields, but they are held within the
body limits (protocol/body.py). `request_id` reads the `id` every request may carry, which
the reply carries back as `re`.

No `from __future__ import annotations` here: `parse_client`'s check is derived from the
annotations at import (typing.get_type_hints).
"""

from collections.abc import Mapping
from typing import Annotated, Literal, NotRequired, TypedDict, cast, final, get_args

from kismet_tui.rules import GAMES

from . import limits
from .body import check_body
from .declared import (
    ABSENT,
    REQUIRED,
    Default,
    Field,
    bad,
    boolean,
    declared_fields,
    int_list,
    integer,
    is_int,
    one_of,
    plain_map,
    text,
)
from .plain import Plain
from .text import clean_chat, clean_name

RULESETS = GAMES  # the games, declared once by the engine (kismet_tui/rules/__init__.py)
# The bot levels every game has (kismet_tui/bots POLICIES; tests/test_protocol_conformance.py
# checks the two agree). An unknown one is a field out of its range: `bad_message`.
BOT_LEVELS = ("random", "greedy", "easy", "medium", "hard")
DEFAULT_BOT_LEVEL = "greedy"  # the level of each bot a `create_table` gives as a number
MAX_LEVEL = 16
RECORDS_VIEWS = ("leaderboard", "recent", "player", "best")  # server/records/queries.py
MAX_RECORDS_PAGE = 10_000


def request_id(message: object) -> int | None:
    """The message's valid `id`, or None."""
    if isinstance(message, dict):
        rid = message.get("id")
        if is_int(rid) and 0 <= rid <= limits.MAX_REQUEST_ID:
            return rid
    return None


# ---- the requests' own field kinds: (value, field name) -> cleaned value, or raise ----------


def id_field(value: object, field: str) -> int:
    """A request's `id`: echoed as the reply's `re`."""
    if not is_int(value) or not 0 <= value <= limits.MAX_REQUEST_ID:
        raise bad(f"'id' must be a whole number from 0 to {limits.MAX_REQUEST_ID}.")
    return value


def name_field(value: object, field: str) -> str:
    """A player's name: cleaned (protocol.text), then cut to MAX_NAME. Clients send up to
    four times that (a long login name is cut, not refused); more is refused in words."""
    if not isinstance(value, str):
        raise bad("A name must be text.")
    if len(value) > limits.MAX_NAME * 4:
        raise bad(f"A name is at most {limits.MAX_NAME} characters; that one has {len(value)}.")
    return clean_name(value)


def chat_field(value: object, field: str) -> str:
    """One chat line, cleaned; over MAX_CHAT characters it is refused in words, never cut."""
    if not isinstance(value, str):
        raise bad("A chat line must be text.")
    cleaned = clean_chat(value) if len(value) <= limits.MAX_CHAT * 4 else value
    if len(cleaned) > limits.MAX_CHAT:
        raise bad(
            f"A chat line is at most {limits.MAX_CHAT} characters; that one has {len(cleaned)}."
        )
    return cleaned


def action_map(value: object, field: str) -> Plain:
    """An `act`'s action: plain data with a `type` (protocol/actions.py checks the rest)."""
    action = plain_map(value, field)
    if not isinstance(action.get("type"), str):
        raise bad("An action must be a map with a 'type'.")
    return action


def options_map(value: object, field: str) -> Plain:
    """A table's options: plain data (the game's normalize_options checks the rest)."""
    if value is None:
        return {}
    options = plain_map(value, field)
    if len(options) > limits.MAX_OPTIONS:
        raise bad(f"'{field}' has too many entries.")
    return options


def bots_field(value: object, field: str) -> list[str]:
    """A number of bots (default level) or a list of levels, one per bot."""
    if is_int(value):
        return [DEFAULT_BOT_LEVEL] * integer(0, limits.MAX_BOTS_PER_TABLE)(value, field)
    if isinstance(value, list):
        if len(value) > limits.MAX_BOTS_PER_TABLE:
            raise bad(f"At most {limits.MAX_BOTS_PER_TABLE} bots per table.")
        levels = [text(MAX_LEVEL, clean_chat)(level, field) for level in value]
        for level in levels:
            if level not in BOT_LEVELS:
                raise bad(
                    f"There is no bot level '{level}'. The levels are: "
                    f"{', '.join(sorted(BOT_LEVELS))}."
                )
        return levels
    raise bad(f"'{field}' must be a number of bots or a list of bot levels.")


def entropy_bytes(value: object, field: str) -> bytes:
    """A player's 16 random bytes for the next game's chance (protocol version 2)."""
    if not isinstance(value, (bytes, bytearray)) or len(value) != limits.ENTROPY_BYTES:
        raise bad(f"'{field}' must be {limits.ENTROPY_BYTES} random bytes.")
    return bytes(value)


def player_ref(value: object, field: str) -> str:
    """A records player id: 32 hex digits, or a bot's "bot:LEVEL"."""
    if isinstance(value, str) and (
        (len(value) == 32 and all(c in "0123456789abcdef" for c in value))
        or (value.startswith("bot:") and 4 < len(value) <= 4 + MAX_LEVEL and value[4:].isalpha())
    ):
        return value
    raise bad(f"'{field}' must be a player's id as the records gave it.")


# ---- the requests -------------------------------------------------------------------------
# docs/protocol.md, "Messages from client to host", says what each one asks and its reply.

Seat = Annotated[int, integer(0, 15)]


class _Request(TypedDict):
    # Every request may carry an `id`; the reply carries it back as `re`.
    id: NotRequired[Annotated[int, id_field]]


@final
class Hello(_Request):
    type: Literal["hello"]
    version: Annotated[int, integer(0, 2**31 - 1)]
    name: Annotated[str, name_field]
    token: NotRequired[Annotated[str | None, text(limits.MAX_TOKEN), Default(None)]]
    door: NotRequired[Annotated[str | None, text(limits.MAX_DOOR_PASS), Default(None)]]
    # The client's saved secret for this host: what the records know the player by.
    player_key: NotRequired[Annotated[str | None, text(limits.MAX_TOKEN), Default(None)]]


@final
class ListTables(_Request):
    type: Literal["list_tables"]
    # Pushes after the answer carry only what changed (`tables_changed`).
    changes: NotRequired[Annotated[bool, boolean, Default(False)]]


@final
class CreateTable(_Request):
    type: Literal["create_table"]
    ruleset: Annotated[str, one_of(RULESETS)]
    options: NotRequired[Annotated[Plain, options_map, Default({})]]
    bots: NotRequired[Annotated[list[str], bots_field, Default([])]]


@final
class JoinTable(_Request):
    type: Literal["join_table"]
    table: Annotated[int, integer(0, limits.MAX_REQUEST_ID)]
    spectator: NotRequired[Annotated[bool, boolean, Default(False)]]


@final
class Leave(_Request):
    type: Literal["leave"]


@final
class Ready(_Request):
    type: Literal["ready"]
    ready: NotRequired[Annotated[bool, boolean, Default(True)]]
    entropy: NotRequired[Annotated[bytes | None, entropy_bytes, Default(None)]]


@final
class Start(_Request):
    type: Literal["start"]
    entropy: NotRequired[Annotated[bytes | None, entropy_bytes, Default(None)]]


@final
class Reorder(_Request):
    type: Literal["reorder"]
    order: Annotated[list[int], int_list(16, limits.MAX_REQUEST_ID)]


@final
class Remove(_Request):
    type: Literal["remove"]
    seat: Seat


@final
class Act(_Request):
    type: Literal["act"]
    action: Annotated[Mapping[str, object], action_map]


@final
class Here(_Request):
    type: Literal["here"]


@final
class HandToBot(_Request):
    type: Literal["hand_to_bot"]
    seat: Seat


@final
class Chat(_Request):
    type: Literal["chat"]
    text: Annotated[str, chat_field]


@final
class MuteWatchers(_Request):
    type: Literal["mute_watchers"]
    muted: NotRequired[Annotated[bool, boolean, Default(True)]]


@final
class Digest(_Request):
    type: Literal["digest"]
    seq: Annotated[int, integer(0, 2**40)]
    digest: Annotated[str, text(limits.MAX_DIGEST)]


@final
class Resync(_Request):
    type: Literal["resync"]


@final
class Ping(_Request):
    type: Literal["ping"]


@final
class Records(_Request):
    type: Literal["records"]
    view: Annotated[str, one_of(RECORDS_VIEWS)]
    ruleset: NotRequired[Annotated[str | None, one_of(RULESETS), Default(None)]]
    # The player view: default the asker.
    player: NotRequired[Annotated[str | None, player_ref, Default(None)]]
    page: NotRequired[Annotated[int, integer(0, MAX_RECORDS_PAGE), Default(0)]]


Request = (
    Hello
    | ListTables
    | CreateTable
    | JoinTable
    | Leave
    | Ready
    | Start
    | Reorder
    | Remove
    | Act
    | Here
    | HandToBot
    | Chat
    | MuteWatchers
    | Digest
    | Resync
    | Ping
    | Records
)

# type -> {field: Field}, derived from the declarations above (`id` first, as every one's).
REQUESTS: dict[str, dict[str, Field]] = dict(map(declared_fields, get_args(Request)))

# type -> the fields parse_client reads in it: its own, `type` and `id`.
READ = {kind: frozenset(fields) | {"type"} for kind, fields in REQUESTS.items()}


def parse_client(message: object) -> Request:
    """A validated copy of one client message, defaults filled, or ProtocolError."""
    if not isinstance(message, dict):
        raise bad("A message must be a map with a type.")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise bad("A message must say its type.")
    fields = REQUESTS.get(kind)
    if fields is None:
        shown = clean_chat(kind[:32])
        raise bad(f"The host does not know the message type '{shown}'.")
    parsed: Plain = {"type": kind}
    for name, field in fields.items():
        if name in message:
            value = message[name]
            parsed[name] = None if value is None and field.nullable else field.check(value, name)
        elif field.default is REQUIRED:
            raise bad(f"A '{kind}' message needs '{name}'.")
        elif field.default is not ABSENT:
            default = field.default
            parsed[name] = type(default)(default) if isinstance(default, (list, dict)) else default
    # The fields it reads have said what was wrong with them in their own words; the body
    # limits hold for every other field too.
    check_body(message, READ[kind])
    return cast(Request, parsed)
