"""What the client publishes (`Client.messages()`), declared: every host message as the host
sent it (protocol/host_messages.py), but two the client adds to, and the client's own news.

The client never writes into a host's message. An `event` is published as an AppliedEvent:
a new map of the event's own fields and, beside them, the notes the replica made for it
(None when it did not apply it: a resync is coming). A `tables_changed` is published as a
ListedChanges: the push's fields and the whole list the client made of it, so no reader
applies changes itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from protocol.host_messages import (
    Chat,
    ChatSkippedMessage,
    Desync,
    ErrorMessage,
    EventMessage,
    GameMessage,
    NoticeMessage,
    Ok,
    Pong,
    RecordsMessage,
    TableMessage,
    Tables,
    TablesChanged,
    TableSummary,
    Welcome,
)

# The notes the replica made for one event, as kismet_tui.source.EventNotes names them (the
# network client does not import the app's modules).
EventNotes = Sequence[Mapping[str, Any]]


class AppliedEvent(EventMessage):
    notes: EventNotes | None  # the replica's notes for it; None: it did not apply it


class ListedChanges(TablesChanged):
    tables: list[TableSummary]  # the whole list once these changes are applied


class ConnectionNews(TypedDict):
    """The connection moved on: "connecting", "connected", "reconnecting", "closed"."""

    type: Literal["connection"]
    state: str
    words: str


class FairnessNews(TypedDict):
    """The finished game's chance checked against the host's commitment."""

    type: Literal["fairness"]
    ok: bool
    words: str


Published = (
    Welcome
    | ErrorMessage
    | Ok
    | Tables
    | ListedChanges
    | TableMessage
    | GameMessage
    | AppliedEvent
    | Chat
    | ChatSkippedMessage
    | Desync
    | Pong
    | RecordsMessage
    | NoticeMessage
    | ConnectionNews
    | FairnessNews
)
