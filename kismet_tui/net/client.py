"""The client library: one connection to a host, and a replica of the table's game.

No Textual here: the UI, bots and tests all use it the same way. An outline (not a doctest:
it needs a host to talk to; tests/test_net_client.py runs the real thing):

    client = Client(on_state=callback)          # callback(state, words) on connection changes
    await client.connect("127.0.0.1", 7717, "Ana")
    tables = await client.list_tables()
    await client.create_table("dice", {"away_limit_ms": 30000}, bots=["greedy"])
    await client.start()
    async for message in client.messages():     # every host message, after the client
        ...                                     # updated table/header/game/seat from it

Requests carry an `id`; the host answers with a message carrying it back as `re`, which
resolves the awaiting call, or with an `error`, which raises `RequestError(code, words)`.
`act()` returns the stamped event once the host accepted the action; a refusal raises
`ActionRefused` with the engine's words. `act_nowait()` sends without waiting (a refusal then
arrives as an `error` message in `messages()`).

The table list: after `list_tables()` the host pushes only the tables that changed
(`tables_changed`); the client keeps the whole list in `listed` and publishes each push with
the whole list beside it under "tables" (a ListedChanges), so a reader never applies changes
itself.

The replica: the `game` message (header + events so far) is replayed; each `event` is applied
in seq order, and published as an AppliedEvent: its fields and, beside them under `"notes"`,
the engine's notes for it (what happened, for move logs; None for an event this replica did
not apply). The host's messages are declared in protocol/host_messages.py, what the client
publishes in kismet_tui/net/published.py; the client never writes into a host's message.
A gap in seq asks the host for a resync. The client sends its digest every
DIGEST_EVERY events and whenever a round or the game ends; a `desync` answer is followed by the
host's full `game` message, which replaces the replica.

Fair chance (protocol version 3): `ready()` and `start()` send 16 random bytes of entropy for
the next game. The replica draws only the values each event reveals (`chance`); an event whose
values do not fit is refused and resynced. When the game ends the host reveals its
`server_seed`: the client checks it against the commit and redraws every revealed value
(`kismet_tui.rules.verify`), keeps the outcome in `client.verification`, and publishes
{"type": "fairness", "ok", "words"} with plain words for the players.

If the connection drops (not by `close()`), the client reconnects with its token, backing
off up to 5 s; the host gives the seat back, and a watcher asks to watch its table again
(after a host restart too; a table no longer there leaves it in the lobby, told why). The state ("connecting", "connected",
"reconnecting", "closed") is `client.state`; each change calls `on_state(state, words)` and
also appears in `messages()` as {"type": "connection", "state", "words"}.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, cast

from kismet_tui.rules import ChanceError, Game, apply_event, game_from_header
from kismet_tui.rules.base import Plain
from kismet_tui.rules.game_types import Event, Header
from kismet_tui.rules.knock import KnockGame, prelay_commitment, prelay_problem
from kismet_tui.rules.refusal import UNAVAILABLE, Refusal, RefusalKind
from kismet_tui.rules.rng import ENTROPY_BYTES
from kismet_tui.rules.verify import Verification, verify
from protocol import limits
from protocol.actions import build_event
from protocol.checkpoints import is_checkpoint
from protocol.errors import ProtocolError, kind_of
from protocol.framing import FROM_HOST, encode, read_frame
from protocol.host_messages import (
    EventMessage,
    GameMessage,
    RecordsMessage,
    TableShown,
    TableSummary,
    ToClient,
    Welcome,
)
from protocol.logsign import PUBLIC_KEY_BYTES
from protocol.requests import DEFAULT_BOT_LEVEL, Hello, Ready, Records, Request

from .inbox import Inbox
from .published import EventNotes, Published

log = logging.getLogger("kismet.client")
CONNECTING, CONNECTED, RECONNECTING, CLOSED = "connecting", "connected", "reconnecting", "closed"
BACKOFF_S = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
# Errors after which the host closes the connection and a reconnect would only repeat them
# (or, for "replaced", fight the player's newer connection).
FINAL_ERRORS = {"replaced", "version"}


class RequestError(Refusal):
    """The host refused a request. `code` is from protocol.ERRORS, `kind` the refusal's kind
    (the host's for an engine's refusal, else the code's: protocol.errors.kind_of); `words`
    are for people."""

    def __init__(self, code: str, words: str, kind: RefusalKind | None = None) -> None:
        super().__init__(words, code, kind or kind_of(code))


class ActionRefused(RequestError):
    """The host refused an action at no cost (its engine, its vocabulary, or too quick after
    the throw [D20]); `words` says why, `kind` whether time alone would make it acceptable
    (NOT_YET)."""


# The codes of an action refused at no cost (ActionRefused).
ACTION_REFUSALS = ("illegal", "bad_action", "too_quick")


class ConnectionLost(RequestError):
    def __init__(self, words: str = "The connection to the host was lost.") -> None:
        super().__init__("connection", words, UNAVAILABLE)


def from_host(body: Plain) -> ToClient:
    """A frame's body as the host message it says it is (protocol/host_messages.py). The
    host is the authority the replica follows: its messages are taken as declared, as its
    events are (one that lacks a declared field fails the read loop, which reconnects)."""
    return cast(ToClient, body)


def unexpected(reply: ToClient, wanted: str) -> RequestError:
    return RequestError("bad_message", f"The host answered with {reply['type']}, not {wanted}.")


# Opens the stream to (host, port) instead of asyncio.open_connection (the host's own bots
# connect through the host's door for them: kismet_tui/bots/runner.py).
OpenStream = Callable[[str, int], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]


class Client:
    """One connection to a host and the replica of its table's game (see the module's
    docstring); it is the app's kismet_tui.source.GameSource when playing over a network."""

    live = True  # requests reach a host (kismet_tui.source.GameSource)

    def __init__(
        self,
        on_state: Callable[[str, str], None] | None = None,
        reconnect: bool = True,
        digest_every: int = limits.DIGEST_EVERY,
        door_pass: str | None = None,
    ):
        self.on_state = on_state
        # The pass a door of the host gave this client (kismet_tui/door_env.py), offered in
        # every hello; None for an ordinary client.
        self.door_pass = door_pass
        self.reconnect = reconnect
        self.digest_every = digest_every
        self.state = CLOSED
        self.name: str | None = None
        self.client_id: int | None = None
        self.token: str | None = None
        # The saved secret this host knows the player's records by (kismet_tui/player_key.py);
        # None: an unproven player, with no records.
        self.player_key: str | None = None
        # The key the host signs its games with, as its welcome showed it (32 bytes; None:
        # a host that showed none). kismet-join remembers it (kismet_tui/known_hosts.py).
        self.host_key: bytes | None = None
        self.open_stream: OpenStream | None = None  # None: asyncio.open_connection
        self.table: TableShown | None = None
        self.header: Header | None = None
        self.game: Game | None = None
        self.events: list[Event] = []
        # The notes the replica made for each of `events` (the move log's words come from
        # them: no screen plays the game again).
        self.notes: list[EventNotes] = []
        self.seat: int | None = None
        # The host's table list by id, in its order: the answer to `list_tables`, kept
        # current by the host's `tables_changed` pushes.
        self.listed: dict[int, TableSummary] = {}
        self.desyncs = 0
        self._address: tuple[str, int] | None = None
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._tasks: list[asyncio.Task] = []
        self._pending: dict[int, asyncio.Future[ToClient]] = {}
        self._next_id = 1
        self._queues: list[Inbox] = []
        self._offset_ms = 0.0
        self._best_rtt = float("inf")
        self._closing = False
        self._final_words: str | None = None
        self._awaiting_game = False
        self._prelay: Plain | None = None  # {"cards", "salt", "commit", "sent"}: knock's pre-lay
        self.verification: Verification | None = None  # the last finished game's check
        # When (time.monotonic()) this client last got dice it had not seen: an event that threw,
        # or a whole game. The host refuses a grab or knock sooner than the floor after it [D20].
        self.throw_seen_at = 0.0

    # ---- connection ------------------------------------------------------------------------
    async def connect(self, host: str, port: int, name: str, token: str | None = None) -> Welcome:
        """Connect and say hello; returns the host's welcome. Raises RequestError/OSError."""
        self._address = (host, port)
        self.name = name
        self.token = token
        self._closing = False
        self._set_state(CONNECTING, f"Connecting to {host}:{port}...")
        try:
            welcome = await self._open()
        except BaseException:
            self._set_state(CLOSED, "Could not connect.")
            raise
        self._set_state(CONNECTED, f"Connected to {host}:{port}.")
        self._tasks.append(asyncio.create_task(self._pinger()))
        return welcome

    async def _open(self) -> Welcome:
        if self._address is None or self.name is None:
            raise ConnectionLost("Not connected to a host yet: connect() first.")
        host, port = self._address
        reader, writer = await (self.open_stream or asyncio.open_connection)(host, port)
        sent = time.monotonic()
        hello: Hello = {
            "type": "hello",
            "version": limits.PROTOCOL_VERSION,
            "name": self.name[: limits.MAX_NAME * 4],
            "token": self.token,
            "id": 0,
        }
        if self.door_pass is not None:
            hello["door"] = self.door_pass
        if self.player_key:
            hello["player_key"] = self.player_key
        writer.write(encode(hello))
        try:
            answer = await asyncio.wait_for(read_frame(reader, FROM_HOST), 10)
        except BaseException:
            writer.close()
            raise
        if answer.get("type") == "error":
            writer.close()
            raise RequestError(answer.get("code", "bad_message"), answer.get("words", ""))
        if answer.get("type") != "welcome":
            writer.close()
            raise RequestError("bad_message", "The host did not answer hello with welcome.")
        welcome = cast(Welcome, answer)  # (taken as declared, as from_host takes the rest)
        self._clock_sample(sent, time.monotonic(), welcome["now"])
        self._reader, self._writer = reader, writer
        self.client_id = welcome["client_id"]
        self.token = welcome["token"]
        self.name = welcome.get("name", self.name)
        shown = welcome.get("host_key")
        self.host_key = (
            shown if isinstance(shown, bytes) and len(shown) == PUBLIC_KEY_BYTES else None
        )
        # A watcher has no seat for the host to keep: coming back (a dropped connection, a
        # host restarted), it asks for its place among the table's watchers again and keeps
        # the board meanwhile.
        watching = self.table["id"] if self.table is not None and self.seat is None else None
        if welcome.get("table") is None and watching is None:
            self._clear_table()
        self._tasks.append(asyncio.create_task(self._read_loop(reader)))
        self._publish(welcome)
        if welcome.get("table") is None and watching is not None:
            self._tasks.append(asyncio.create_task(self._watch_again(watching)))
        return welcome

    async def _watch_again(self, table_id: int) -> None:
        """Back among the watchers of `table_id`, or, if it cannot be watched now, in the
        lobby with words saying why."""
        try:
            await self._request({"type": "join_table", "table": table_id, "spectator": True})
        except RequestError as exc:
            self._clear_table()
            self._publish(
                {
                    "type": "notice",
                    "code": "not_watching",
                    "words": f"Table {table_id} cannot be watched now ({exc.words.rstrip('.')}): "
                    "you are in the lobby.",
                }
            )
        except ConnectionLost:
            pass  # dropped again: the next reconnect asks again

    async def close(self) -> None:
        """Close for good (no reconnect)."""
        self._closing = True
        for task in self._tasks:
            task.cancel()
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass
        self._tasks.clear()
        if self._writer is not None:
            self._writer.close()
        self._fail_pending(ConnectionLost("The connection was closed."))
        self._set_state(CLOSED, "Disconnected.")

    def _set_state(self, state: str, words: str) -> None:
        self.state = state
        if self.on_state is not None:
            try:
                self.on_state(state, words)
            except Exception:
                log.exception("on_state callback failed")
        self._publish({"type": "connection", "state": state, "words": words})

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                body = await read_frame(reader, FROM_HOST)
                if isinstance(body.get("type"), str):  # (a map with no kind says nothing)
                    self._dispatch(from_host(body))
        except asyncio.CancelledError:
            raise
        except (asyncio.IncompleteReadError, ConnectionError, OSError, ProtocolError):
            pass
        except Exception:
            log.exception("client read loop failed")
        if not self._closing:
            self._tasks = [task for task in self._tasks if not task.done()]
            self._tasks.append(asyncio.create_task(self._lost()))

    async def _lost(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._fail_pending(ConnectionLost())
        if not self.reconnect or self._final_words:
            self._set_state(CLOSED, self._final_words or "The connection to the host was lost.")
            return
        attempt = 0
        while not self._closing:
            self._set_state(RECONNECTING, "Connection lost. Reconnecting...")
            await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
            attempt += 1
            try:
                await self._open()
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ProtocolError):
                continue
            except RequestError as exc:
                if exc.code in FINAL_ERRORS:
                    self._set_state(CLOSED, exc.words)
                    return
                continue  # e.g. the host is full for now: keep trying
            self._set_state(CONNECTED, "Reconnected.")
            return

    async def _pinger(self) -> None:
        while True:
            await asyncio.sleep(limits.PING_INTERVAL_S)
            if self.state != CONNECTED:
                continue
            try:
                sent = time.monotonic()
                pong = await self._request({"type": "ping"})
                if pong["type"] == "pong":
                    self._clock_sample(sent, time.monotonic(), pong["now"])
            except RequestError:
                pass

    def _clock_sample(self, sent: float, received: float, host_now: int) -> None:
        rtt = received - sent
        if rtt <= self._best_rtt * 1.5 or rtt < 0.005:
            self._best_rtt = min(self._best_rtt, rtt)
            self._offset_ms = host_now + rtt * 500 - received * 1000

    def host_time_ms(self) -> int:
        """The host's clock as this client estimates it (for countdowns)."""
        return int(time.monotonic() * 1000 + self._offset_ms)

    def since_throw_ms(self) -> float:
        """How long ago this client got the dice it shows (see `throw_seen_at`)."""
        return (time.monotonic() - self.throw_seen_at) * 1000

    def applied_events(self) -> list[Event]:
        """The stamped events the replica has applied (all it has: it applies each on arrival)."""
        return self.events

    def applied_notes(self) -> list[EventNotes]:
        """The notes the replica made for each event it applied, in order."""
        return self.notes

    # ---- messages in ------------------------------------------------------------------------
    def messages(self) -> AsyncIterator[Published]:
        """Every host message (and connection change), after the client state was updated.
        Chat lines a slow listener has not taken are bounded (kismet_tui/net/inbox.py): past
        that, they come as one `chat_skipped` with their count."""
        queue = Inbox()
        self._queues.append(queue)

        async def iterate() -> AsyncIterator[Published]:
            try:
                while True:
                    yield await queue.get()
            finally:
                self._queues.remove(queue)

        return iterate()

    def _publish(self, message: Published) -> None:
        for queue in self._queues:
            queue.put(message)

    def _dispatch(self, message: ToClient) -> None:
        if message["type"] == "event":
            self._publish({**message, "notes": self._on_event(message)})
        elif message["type"] == "tables_changed":
            self._on_tables_changed(message.get("changed"), message.get("removed"))
            # Published with the whole list beside the push's fields, never written into it.
            self._publish({**message, "tables": list(self.listed.values())})
        else:
            if message["type"] == "game":
                self._on_game(message)
            elif message["type"] == "table":
                self._on_table(message["table"])
            elif message["type"] == "tables":
                self.listed = {}
                self._on_tables_changed(message.get("tables"), [])
            elif message["type"] == "desync":
                self.desyncs += 1
                self._awaiting_game = True
            elif message["type"] == "error" and message.get("code") in FINAL_ERRORS:
                self._final_words = message.get("words")  # reconnecting would not help
            self._publish(message)
        re = message.get("re")
        future = self._pending.pop(re, None) if isinstance(re, int) else None
        if future is not None and not future.done():
            if message["type"] == "error":
                # too_quick [D20] is a move refused at no cost, like the engine's refusals.
                code = str(message.get("code", ""))
                cls = ActionRefused if code in ACTION_REFUSALS else RequestError
                future.set_exception(
                    cls(code, str(message.get("words", "")), kind_of(code, message.get("kind")))
                )
            else:
                future.set_result(message)

    def _clear_table(self) -> None:
        self.table = None
        self.header = None
        self.game = None
        self.events = []
        self.notes = []
        self.seat = None
        self.verification = None

    def _on_table(self, table: TableShown) -> None:
        if table.get("state") == "closed":
            self._clear_table()
            return
        if self.table is not None and table["id"] != self.table["id"]:
            self.header, self.game, self.events, self.notes = None, None, [], []
            self.verification = None
        self.table = table
        self.seat = next(
            (
                index
                for index, seat in enumerate(table["seats"])
                if seat.get("client_id") == self.client_id
            ),
            None,
        )

    def _on_tables_changed(self, changed: object, removed: object) -> None:
        """A table the list has is replaced where it stands, a new one goes last (where the
        host lists it: ids only grow), a removed one goes. A summary that did not change stays
        the same object, so the lobby can tell which rows to draw again."""
        for table_id in removed if isinstance(removed, list) else []:
            self.listed.pop(table_id, None)
        for entry in changed if isinstance(changed, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("id"), int):
                self.listed[entry["id"]] = cast(TableSummary, entry)

    def _on_game(self, message: GameMessage) -> None:
        header = message["header"]
        try:
            game = game_from_header(header)
            # Built as the host built them (protocol/actions.py): the one parse of an action.
            events = [cast(Event, build_event(game.RULESET, e)) for e in message["events"]]
            notes: list[EventNotes] = [apply_event(game, event) for event in events]
        except (Refusal, KeyError, TypeError) as exc:
            log.error("the host's game log does not replay: %s", exc)
            if isinstance(exc, ChanceError):
                self._fairness(False, f"The host's game does not add up: {exc.words}")
            return
        if header is not self.header:
            self.verification = None
        self.header, self.game, self.events, self.notes = header, game, events, notes
        self._awaiting_game = False
        self.throw_seen_at = time.monotonic()  # whatever throw it holds is seen only now
        if message.get("server_seed") is not None and self.verification is None:
            self._verify(message["server_seed"])
        if self._prelay is not None:
            self._prelay["sent"] = False  # a reveal lost with a dropped connection goes again
        self._maybe_reveal()

    def _on_event(self, event: EventMessage) -> EventNotes | None:
        """Apply one event to the replica: the notes it made, or None if it did not apply
        it (no game yet, one already had, or out of step: a resync is asked for)."""
        if self.game is None or self._awaiting_game:
            return None
        expected = len(self.events) + 1
        if event["seq"] < expected:
            return None  # already have it
        if event["seq"] > expected:
            self._ask_resync()
            return None
        try:
            built = build_event(self.game.RULESET, event)
            notes = apply_event(self.game, built)
        except Refusal as exc:  # (an action the declarations refuse, or the engine)
            log.error("event %s does not apply here (%s): resyncing", event["seq"], exc.words)
            if isinstance(exc, ChanceError):
                self._fairness(
                    False, f"Move {event['seq']} came with chance that does not fit: {exc.words}"
                )
            self._ask_resync()
            return None
        if any(note.get("type") == "rolled" for note in notes):
            self.throw_seen_at = time.monotonic()
        kept: Event = {
            "seq": built["seq"],
            "t": built["t"],
            "seat": built["seat"],
            "action": built["action"],
        }
        if "chance" in event:
            kept["chance"] = event["chance"]
        self.events.append(kept)
        self.notes.append(notes)
        if event.get("server_seed") is not None:
            self._verify(event["server_seed"])
        if is_checkpoint(event["seq"], notes, self.game.finished, self.digest_every):
            self._send({"type": "digest", "seq": event["seq"], "digest": self.game.digest()})
        self._maybe_reveal()
        return notes

    # ---- fair chance ---------------------------------------------------------------------------
    def _verify(self, server_seed: object) -> None:
        """The game is over and its seed revealed: check the commit and every value drawn."""
        if self.header is None:
            return  # no game here to check (a seed can only come with a game's events)
        result = verify(self.header, self.events, server_seed)
        self.verification = result
        if result.ok:
            self._fairness(
                True,
                "Verified: every die and card came from the seed the host "
                "committed to before the game.",
            )
        else:
            self._fairness(False, f"This game's chance does not check out. {result.words}")

    def _fairness(self, ok: bool, words: str) -> None:
        if not ok:
            log.error("fairness: %s", words)
        self._publish({"type": "fairness", "ok": ok, "words": words})

    def _ask_resync(self) -> None:
        if not self._awaiting_game:
            self._awaiting_game = True
            self._send({"type": "resync"})

    # ---- requests ----------------------------------------------------------------------------
    def _send(self, message: Request) -> None:
        if self._writer is None or self._writer.is_closing():
            raise ConnectionLost("Not connected to a host.")
        self._writer.write(encode(message, limits.MAX_FRAME))

    async def _request(self, message: Request) -> ToClient:
        rid = self._next_id
        self._next_id = rid + 1 if rid < limits.MAX_REQUEST_ID else 1
        future: asyncio.Future[ToClient] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        asked = message.copy()
        asked["id"] = rid
        try:
            self._send(asked)
        except BaseException:
            self._pending.pop(rid, None)
            raise
        return await future

    def _fail_pending(self, error: Exception) -> None:
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(error)

    async def list_tables(self) -> list[TableSummary]:
        """The host's tables; from then on the host pushes what changes (`tables_changed`,
        applied to `listed` and published with the whole list under "tables")."""
        reply = await self._request({"type": "list_tables", "changes": True})
        if reply["type"] != "tables":
            raise unexpected(reply, "tables")
        return reply["tables"]

    async def records(
        self, view: str, ruleset: str | None = None, player: str | None = None, page: int = 0
    ) -> RecordsMessage:
        """One page of the host's records (docs/protocol.md, "Records")."""
        message: Records = {"type": "records", "view": view, "page": page}
        if ruleset is not None:
            message["ruleset"] = ruleset
        if player is not None:
            message["player"] = player
        reply = await self._request(message)
        if reply["type"] != "records":
            raise unexpected(reply, "records")
        return reply

    async def create_table(
        self, ruleset: str, options: dict | None = None, bots: int | list[str] = 0
    ) -> TableShown | None:
        """Create a table and sit at it as its owner; returns the table dict. `bots`: a
        number of bots (of the default level), or a list of bot levels (one per bot)."""
        levels = [DEFAULT_BOT_LEVEL] * bots if isinstance(bots, int) else bots
        await self._request(
            {"type": "create_table", "ruleset": ruleset, "options": options or {}, "bots": levels}
        )
        return self.table

    async def join_table(self, table_id: int, spectator: bool = False) -> TableShown | None:
        await self._request({"type": "join_table", "table": table_id, "spectator": spectator})
        return self.table

    async def leave(self) -> None:
        await self._request({"type": "leave"})
        self._clear_table()

    async def ready(self, flag: bool = True) -> None:
        """Say ready (with fresh entropy for the next game's chance) or not ready."""
        message: Ready = {"type": "ready", "ready": flag}
        if flag:
            message["entropy"] = os.urandom(ENTROPY_BYTES)
        await self._request(message)

    async def start(self) -> None:
        """Owner: start the game, adding our entropy to its chance."""
        await self._request({"type": "start", "entropy": os.urandom(ENTROPY_BYTES)})

    async def reorder(self, order: list[int]) -> None:
        """Owner only, before a game: new seat i is the old seat order[i]."""
        await self._request({"type": "reorder", "order": order})

    async def remove(self, seat: int) -> None:
        """Owner only, between games: free seat `seat` (0-based); its player is told."""
        await self._request({"type": "remove", "seat": seat})

    def here_nowait(self) -> None:
        """Say we are here (a key was pressed): the host stops playing our seat [D31]."""
        self._send({"type": "here"})

    async def hand_to_bot(self, seat: int) -> None:
        """Owner only, during a game: the host plays seat `seat` until its player acts."""
        await self._request({"type": "hand_to_bot", "seat": seat})

    async def chat(self, text: str) -> None:
        await self._request({"type": "chat", "text": text})

    async def mute_watchers(self, muted: bool = True) -> None:
        """Owner only: the watchers' chat off (or on again, muted=False)."""
        await self._request({"type": "mute_watchers", "muted": muted})

    async def act(self, action: Mapping[str, Any]) -> EventMessage:
        """Send a game action; returns the stamped event, or raises ActionRefused."""
        reply = await self._request({"type": "act", "action": action})
        if reply["type"] != "event":
            raise unexpected(reply, "event")
        return reply

    def act_nowait(self, action: Mapping[str, Any]) -> None:
        """Send a game action without waiting; a refusal arrives as an `error` message."""
        self._send({"type": "act", "action": action})

    async def check_digest(self) -> bool:
        """Ask the host to compare our replica with its game now. True if they agree; on a
        mismatch the host's full log has replaced the replica by the time this returns."""
        if self.game is None:
            raise RequestError("no_game", "No game is running at this table.")
        seq = len(self.events)
        reply = await self._request({"type": "digest", "seq": seq, "digest": self.game.digest()})
        if reply["type"] == "desync":
            await self._request({"type": "ping"})  # the `game` that follows has been applied
            return False
        return True

    # ---- knock's secret pre-lay -----------------------------------------------------------------
    async def prelay(self, cards: list[int]) -> EventMessage:
        """Commit to a secret pre-lay (knock; `cards` in laying order, the last on top).

        The salt is drawn fresh and kept in memory only; once every seat has committed, the
        client sends the reveal by itself (again after a reconnect, if still needed). Returns
        the stamped commit event, or raises ActionRefused.
        """
        if isinstance(self.game, KnockGame):
            problem = prelay_problem(list(cards), list(self.game.chips))
            if problem is not None:  # never commit to what could not be revealed
                raise ActionRefused("illegal", problem)
        salt = os.urandom(16).hex()
        commitment = prelay_commitment(list(cards), salt)
        self._prelay = {"cards": list(cards), "salt": salt, "commit": commitment, "sent": False}
        return await self.act({"type": "prelay", "commit": commitment})

    def _maybe_reveal(self) -> None:
        """Reveal our committed pre-lay when the game is in its reveal phase."""
        secret, game, seat = self._prelay, self.game, self.seat
        if secret is None or secret["sent"] or game is None or seat is None:
            return
        if not isinstance(game, KnockGame) or game.phase != "prelay_reveal":
            return
        if game.commits[seat] != secret["commit"] or game.reveals[seat] is not None:
            return
        secret["sent"] = True
        try:
            self._send(
                {
                    "type": "act",
                    "action": {"type": "reveal", "cards": secret["cards"], "salt": secret["salt"]},
                }
            )
        except ConnectionLost:
            secret["sent"] = False
