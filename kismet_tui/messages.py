"""The app's Textual messages: what the host says, going down to the screens, and what a
screen wants of the app, going up.

Down: the network worker (KismetApp.read_host) is the only code that awaits the network. It
turns each thing the host says (declared in protocol/host_messages.py, as the client publishes
it: kismet_tui/net/published.py) into one typed message per kind (`host_message`), after the
client has already applied it to its replica (client.game, client.table, client.seat). The
app handles each with `@on` and then hands a copy to every screen (`HostMessage` does not
bubble back up); the screens handle the kinds they care for with `@on` too. Chat is the
exception: the app keeps it and the screens show it from the app's `chat_said`.

Up: a screen never calls the app. It posts `RefusalToShow` (words to show), `RematchAsked` or
`LeaveAsked`, which bubble to the app, and makes its requests of the game's source through
`send`, which turns any failure into a `RefusalToShow`.

The connection's changes (ConnectionChanged) and the background build of the optimal dice
table (BuildChanged) report the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from protocol.host_messages import TableShown, TableSummary

from .net.published import Published
from .rules.game_types import Event, Header
from .rules.refusal import words_of
from .source import EventNotes

T = TypeVar("T")


# ---- down: what the host says ----------------------------------------------------------------
@dataclass
class HostMessage(Message, bubble=False):
    """Any message from the host (each kind below is one): a handler of this class hears
    them all, after the handlers of the kind. None bubbles (each kind says so again: Textual
    gives every subclass its own `bubble`): the app hands them down, a screen keeps them."""


@dataclass
class Welcomed(HostMessage, bubble=False):
    """The host took our hello (again, after a reconnect)."""

    client_id: int | None
    table: int | None


@dataclass
class TablesListed(HostMessage, bubble=False):
    """The host's whole table list: the answer to `list_tables`, or after the host's push of
    what changed (the client applied it: a summary that did not change is the same object)."""

    tables: list[TableSummary]


@dataclass
class TableChanged(HostMessage, bubble=False):
    """The table we are at changed (client.table has it already)."""

    table: TableShown


@dataclass
class GameArrived(HostMessage, bubble=False):
    """The whole game: at its start, on joining one under way, or a resync."""

    header: Header
    events: list[Event]


@dataclass
class EventApplied(HostMessage, bubble=False):
    """One stamped event. `notes` are the engine's notes the replica made for it, or None
    when the replica did not apply it (a resync is coming)."""

    seq: int | None
    seat: int | None
    notes: EventNotes | None


@dataclass
class HostRefused(HostMessage, bubble=False):
    """An `error`; `re` is the request it answers (shown where that was sent), or None."""

    code: str
    words: str
    re: int | None


@dataclass
class ChatHeard(HostMessage, bubble=False):
    """One chat line. The app keeps it (`chat_lines`, `chat_said`); the screens show it from
    there, so it is not handed down to them like the other kinds."""

    name: str
    text: str


@dataclass
class ChatSkipped(HostMessage, bubble=False):
    """Chat lines that were not shown, and words saying how many: the host skipped them while
    our connection was behind, or the client while the app was (kismet_tui/net/inbox.py)."""

    count: int
    words: str


@dataclass
class HostNotice(HostMessage, bubble=False):
    """The host's word to the table that is no refusal: a member removed, saving again."""

    code: str
    words: str


@dataclass
class FairnessChecked(HostMessage, bubble=False):
    """The client checked the finished game's chance against the host's commitment."""

    ok: bool
    words: str


@dataclass
class ConnectionReported(HostMessage, bubble=False):
    """The client's connection moved on ("reconnecting", "connected", "closed")."""

    state: str
    words: str


@dataclass
class DesyncFound(HostMessage, bubble=False):
    """The host's game differs from our replica: its whole log follows."""

    seq: int | None


def host_message(msg: Published) -> HostMessage | None:
    """The typed message for one host message (as the client publishes it:
    kismet_tui/net/published.py), or None for a quiet answer or a kind this app does not
    know. A field missing is read as nothing, never a crash (a test's source gives a bare
    `welcome`)."""
    if msg["type"] == "event":
        notes = msg.get("notes")
        return EventApplied(
            msg.get("seq"), msg.get("seat"), list(notes) if notes is not None else None
        )
    if msg["type"] == "table":
        return TableChanged(msg["table"])
    if msg["type"] in ("tables", "tables_changed"):
        return TablesListed(list(msg.get("tables") or []))
    if msg["type"] == "game":
        return GameArrived(msg["header"], list(msg.get("events") or []))
    if msg["type"] == "error":
        return HostRefused(msg.get("code") or "", msg.get("words") or "", msg.get("re"))
    if msg["type"] == "chat":
        return ChatHeard(msg.get("name") or str(msg.get("from") or "?"), msg.get("text", ""))
    if msg["type"] == "chat_skipped":
        return ChatSkipped(msg.get("count", 0), msg.get("words") or "")
    if msg["type"] == "notice":
        return HostNotice(msg.get("code") or "", msg.get("words") or "")
    if msg["type"] == "fairness":
        return FairnessChecked(bool(msg.get("ok")), str(msg.get("words")))
    if msg["type"] == "connection":
        return ConnectionReported(msg.get("state") or "", msg.get("words") or "")
    if msg["type"] == "welcome":
        return Welcomed(msg.get("client_id"), msg.get("table"))
    if msg["type"] == "desync":
        return DesyncFound(msg.get("seq"))
    return None


# ---- up: what a screen wants of the app ------------------------------------------------------
@dataclass
class RefusalToShow(Message):
    """Words for the player: something was not allowed, or could not be sent. The app shows
    them on the status bar and in the move log."""

    words: str


@dataclass
class RematchAsked(Message):
    """The player wants another game at the same table (r at the end of a game)."""


@dataclass
class LeaveAsked(Message):
    """The player leaves the table for the lobby (ctrl+l from a game or its results)."""


async def send(sender: MessagePump, request: Callable[[], Awaitable[T]]) -> T | None:
    """Make a request of the game's source (`send(self, client.leave)`, with arguments through
    functools.partial). Any failure goes up from `sender` as a RefusalToShow, never raised into the
    UI, and the result is then None. A callable, not a coroutine: a request that a newer one
    replaces before it ran is then never made at all."""
    ok, result = await attempt(sender, request)
    return result


async def send_ok(sender: MessagePump, request: Callable[[], Awaitable[object]]) -> bool:
    """Like send, but only says whether the host took it."""
    ok, _ = await attempt(sender, request)
    return ok


async def attempt(
    sender: MessagePump, request: Callable[[], Awaitable[T]]
) -> tuple[bool, T | None]:
    try:
        return True, await request()
    except Exception as exc:  # refusals and dropped connections alike: tell the player
        sender.post_message(RefusalToShow(words_of(exc)))
        return False, None


# ---- the app's own news ----------------------------------------------------------------------
class ConnectionChanged(Message):
    """The connection to the host changed: state is a short word ("connecting", "connected",
    "reconnecting", "closed"), detail a sentence for the status line."""

    def __init__(self, state: str, detail: str = "") -> None:
        super().__init__()
        self.state = state
        self.detail = detail


class BuildChanged(Message):
    """The optimal dice table's background build moved on (kismet_tui.solver.background
    says so from the build's own thread); the app reads its words again."""
