"""Every message the host sends, declared once (docs/protocol.md, "Messages from host to
client"), as the games' actions, notes and views are declared (kismet_tui/rules/*_types.py).

Each is a TypedDict, so it stays the plain map msgpack carries (declaring a message changes no
byte on the wire), with a `Literal` `type` naming its kind. The host builds them typed
(server/), the client reads them typed (kismet_tui/net/client.py, kismet_tui/messages.py),
and mypy catches a misspelt field on either side (tests/test_typed_host_messages.py). `re`
is the id of the request a message answers: `NotRequired` where only the copy that answers a
request carries it, `int | None` where the field is always there (`welcome`, `pong`).

A game's header and its events are the engine's declarations (game_types.Header, Event), as
the log keeps them; the log's records are declared here too.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from kismet_tui.rules.game_types import EndRecord, Event, Header
from kismet_tui.rules.refusal import RefusalKind


class Welcome(TypedDict):
    type: Literal["welcome"]
    re: int | None  # the hello's id, or None when it had none
    client_id: int
    token: str
    name: str
    version: int
    now: int  # host ms
    table: int | None
    host_key: bytes | None  # 32 bytes: the key that signs the host's games


class ErrorMessage(TypedDict):
    type: Literal["error"]
    code: str
    kind: RefusalKind
    words: str
    re: NotRequired[int]


class Ok(TypedDict):
    type: Literal["ok"]
    re: int


class TableSummary(TypedDict):
    """One table of the lobby's list (`tables`, `tables_changed`)."""

    id: int
    ruleset: str
    state: str  # "lobby", "playing" or "finished"
    seats: list[str]  # the seated players' names
    max_seats: int
    spectators: int
    owner: str | None  # the owner's name
    paused: bool
    turn_limit_ms: int | None  # 0: the owner chose none [D31]; None: the game has none


class Tables(TypedDict):
    type: Literal["tables"]
    tables: list[TableSummary]
    # In the answer to `list_tables` (None when it had no id); a push has none.
    re: NotRequired[int | None]


class TablesChanged(TypedDict):
    type: Literal["tables_changed"]
    changed: list[TableSummary]
    removed: list[int]


class Outcome(TypedDict):
    """The last game's outcome for a seat, once the records took the game in."""

    rating: int | None
    change: int | None
    best: bool


class SeatShown(TypedDict):
    name: str
    client_id: int | None
    bot: str | None  # the bot's level, None for a player
    ready: bool
    connected: bool
    away: bool
    idle: bool  # away but here: the host plays the seat until its player acts [D31]
    wins: int  # tonight's standings
    outcome: Outcome | None


class Spectator(TypedDict):
    client_id: int | None
    name: str


class TableShown(TypedDict):
    """A table as its members see it (the `table` message)."""

    id: int
    ruleset: str
    options: dict[str, Any]  # all defaults filled
    state: str  # "lobby", "playing", "finished"; "closed" when the table is gone
    owner: int | None  # the owner's client id
    games_played: int
    commit: str
    max_seats: int
    free_unready_at: int | None
    paused: bool
    evening_since: int | None
    watchers_muted: bool
    seats: list[SeatShown]
    spectators: list[Spectator]


class TableMessage(TypedDict):
    type: Literal["table"]
    table: TableShown


class GameMessage(TypedDict):
    type: Literal["game"]
    header: Header
    events: list[Event]
    server_seed: NotRequired[bytes]  # once the game is over
    re: NotRequired[int]


class EventMessage(TypedDict):
    type: Literal["event"]
    seq: int
    t: int
    seat: int  # -1: the host
    action: dict[str, Any]
    chance: NotRequired[list[int]]
    server_seed: NotRequired[bytes]  # on the event that ends the game
    re: NotRequired[int]  # only in the sender's copy


# (`from` is a Python keyword: the functional form.)
Chat = TypedDict(
    "Chat",
    {"type": Literal["chat"], "from": int, "name": str, "text": str, "t": int},
)


class ChatSkippedMessage(TypedDict):
    type: Literal["chat_skipped"]
    count: int
    words: str


class Desync(TypedDict):
    type: Literal["desync"]
    re: int | None  # the digest's id, or None when it had none
    seq: int
    digest: str  # the host's


class Pong(TypedDict):
    type: Literal["pong"]
    re: int | None
    now: int


class NoticeMessage(TypedDict):
    type: Literal["notice"]
    code: str
    words: str


# ---- the records' pages (docs/protocol.md, "Records") ---------------------------------------


class LeaderRow(TypedDict):
    player: str
    name: str
    bot: bool
    rating: int
    games: int
    wins: int
    best: int


class RecordSeat(TypedDict):
    name: str
    score: int
    won: bool
    player: str | None
    left: bool


class GameRow(TypedDict):
    """A `recent` row; a player's page adds their seat's figures, `best` the solo seat's."""

    game: int
    ruleset: str
    ended: int
    log: str | None
    seats: list[RecordSeat]
    score: NotRequired[int]
    won: NotRequired[bool]
    best: NotRequired[bool]
    finished: NotRequired[bool]
    change: NotRequired[int | None]
    name: NotRequired[str]


class ReactionTrend(TypedDict):
    recent_ms: list[int]
    fastest_month_ms: int | None


class CostTrend(TypedDict):
    recent_centi: list[int]
    average_centi: int | None


class Standing(TypedDict):
    ruleset: str
    rating: int
    games: int
    wins: int
    best: int
    average: int
    rated: int
    reaction: NotRequired[ReactionTrend]  # race only
    review: NotRequired[CostTrend]  # dice only


class RecordsPage(TypedDict):
    """What the records found for one request (server/records/queries.py)."""

    rows: list[LeaderRow] | list[GameRow]
    more: bool
    found: NotRequired[bool]  # the `player` view
    player: NotRequired[str]
    name: NotRequired[str]
    bot: NotRequired[bool]
    standings: NotRequired[list[Standing]]


class RecordsMessage(RecordsPage):
    type: Literal["records"]
    re: int | None
    view: str
    ruleset: str | None
    page: int
    me: str | None  # the asker's records id


# Any message the host sends to a client (the app's Textual message for one is another
# thing: kismet_tui.messages.HostMessage).
ToClient = (
    Welcome
    | ErrorMessage
    | Ok
    | Tables
    | TablesChanged
    | TableMessage
    | GameMessage
    | EventMessage
    | Chat
    | ChatSkippedMessage
    | Desync
    | Pong
    | RecordsMessage
    | NoticeMessage
)


# ---- the log file's records (docs/protocol.md, "The log file") ------------------------------


class HeaderRecord(TypedDict):
    kind: Literal["header"]
    header: Header
    table: int
    host_key: NotRequired[bytes]


class EventRecord(TypedDict):
    kind: Literal["event"]
    seq: int
    t: int
    seat: int
    action: dict[str, Any]
    chance: NotRequired[list[int]]


class SignatureRecord(TypedDict):
    kind: Literal["signature"]
    key: bytes
    signature: bytes


LogRecord = HeaderRecord | EventRecord | EndRecord | SignatureRecord


def event_record(event: Event) -> EventRecord:
    """An event as the log keeps it."""
    return {"kind": "event", **event}
