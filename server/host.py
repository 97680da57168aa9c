"""The host: what it holds, and the wiring of its jobs, each in a module of its own.

Usable in-process (tests, the single-player app) as well as from the `kismet-host` CLI:

    host = Host(state_dir=path, bot_factory=None)
    await host.start("127.0.0.1", 0)     # port 0: any free port; see host.port
    ...
    await host.stop()

The jobs, each a module of its own; the request handlers take the host as a `Jobs`
(server/jobs.py, a typed Protocol), and each job's state lives in its own object:
- server/connection.py: the connection and its limits (the door, rate, idle, the sweep),
  held by the `Gate`;
- server/handshake.py: hello and ping, who a player is across reconnections
  (server/player.py), a drop;
- server/lobby.py: the lobby's requests (tables, seats, ready, order, chat, mute, remove),
  chat within the budgets of server/chat.py; the table list pushed to who asked for it
  (server/table_list.py, `TableListFeed`);
- server/steering.py: the owner's removals and the unready-seat timers (`Steering`);
- server/starting.py: a game's start, and the wait for the table's bots;
- server/relay.py: the relay of moves (act) and the digest and resync checks;
- server/idle.py: idle seats (here, the owner's hand_to_bot, back on any action) [D31];
- server/resume.py: the table file a game's start writes, and resume at start-up;
- server/table.py: one table, its game stamped, logged, broadcast, and its timers; it is
  given a `TableHost` (this host) and tells it of a game's end.

Every handler runs to completion without awaiting, so the actions of one table are stamped
and broadcast in exactly the order they are handled: each connection's in the order it sent
them, connections in turns of a few messages each (server/connection.py).
`bot_factory(host, table_id, level, token)` (optional) starts a bot client for a reserved
seat and returns its asyncio task; the host cancels the tasks when it stops.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, Protocol

from kismet_tui.rules.game_types import Header
from kismet_tui.rules.refusal import Refusal
from protocol.errors import ProtocolError
from protocol.requests import parse_client, request_id

from . import capacity, connection, handshake, idle, lobby, records_request, relay, resume, starting
from .connection import Connection, Gate
from .doors.door_pass import DoorPasses
from .evening import Evening
from .identity import HostIdentity
from .peer_cap import DEFAULT_MAX_PER_ADDRESS
from .player import Player, ToldLater
from .records import RecordIndex, SeatOutcome
from .records.proof import bot_id
from .state_lock import StateLock
from .steering import Steering
from .store import DEFAULT_KEEP_GAMES, Disk, GameWriter, Store
from .table import FINISHED, Seat, Table
from .table_list import TableListFeed
from .table_share import DEFAULT_BOTS_PER_PLAYER, DEFAULT_TABLES_PER_PLAYER

log = logging.getLogger("kismet.host")

# A request's handler: (host, conn, the request, its `id`). Each takes its own request type (a
# TypedDict of protocol/requests.py, narrowed by `type`), which a table of them can only call
# `Any`; tests/test_server_handlers.py checks that each is filed under its request's type.
Handler = Callable[["Host", Connection, Any, "int | None"], None]


class BotFactory(Protocol):
    """Starts a bot client for a reserved seat: (host, table id, level, token) -> its task
    (kismet_tui/bots/runner.py); may say its `levels`."""

    def __call__(
        self, host: Host, table_id: int, level: str, token: str
    ) -> asyncio.Task[None] | None: ...


# Request type -> its handler(host, conn, msg, re); every client request type has one.
HANDLERS: dict[str, Handler] = {
    "hello": handshake.on_hello,
    "ping": handshake.on_ping,
    "list_tables": lobby.on_list_tables,
    "create_table": lobby.on_create_table,
    "join_table": lobby.on_join_table,
    "leave": lobby.on_leave,
    "ready": lobby.on_ready,
    "reorder": lobby.on_reorder,
    "remove": lobby.on_remove,
    "chat": lobby.on_chat,
    "mute_watchers": lobby.on_mute_watchers,
    "start": starting.on_start,
    "act": relay.on_act,
    "here": idle.on_here,
    "hand_to_bot": idle.on_hand_to_bot,
    "digest": relay.on_digest,
    "resync": relay.on_resync,
    "records": records_request.on_records,
}


class Host:
    def __init__(
        self,
        state_dir: str | Path,
        bot_factory: BotFactory | None = None,
        max_bots: int | None = None,
        disk: Disk | None = None,
        max_per_address: int | None = DEFAULT_MAX_PER_ADDRESS,
        cap_loopback: bool = False,
        max_connections: int | None = None,
        keep_games: int | None = DEFAULT_KEEP_GAMES,
        identity: HostIdentity | None = None,
        tables_per_player: int | None = DEFAULT_TABLES_PER_PLAYER,
        bots_per_player: int | None = DEFAULT_BOTS_PER_PLAYER,
        pause_alone: bool = False,
    ) -> None:
        # identity: the key that signs finished games (server/identity.py); None: the one
        # kept in state_dir.
        self.store = Store(state_dir, disk, identity=identity)
        # The records (server/records/): finished games, players, ratings, in SQLite, kept
        # by a worker thread; it also prunes the logs beyond keep_games.
        self.records = RecordIndex(state_dir, keep_games)
        # Tonight's standings, across tables and restarts (server/evening.py).
        self._evening = Evening(self.store)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.records_asked = records_request.RecordsAsked(self.records)  # the `records` request's
        # One host per state folder (server/state_lock.py): held from start (or an earlier
        # claim_state_folder) to stop.
        self.state_lock: StateLock | None = None
        self.program = "kismet-host"  # the command it runs in, as a second one is told (`kismet`)
        # The connections and their limits (server/connection.py). Fair share: at most
        # max_per_address connections from one address (None: no cap), loopback exempt
        # unless cap_loopback. max_connections None: what this machine's descriptors and
        # memory allow (server/capacity.py).
        self.gate = Gate(
            capacity.connection_limit() if max_connections is None else max_connections,
            max_per_address,
            cap_loopback,
            handle=self.handle,
            ended=self._ended,
        )
        # Open tables one player may own (server/table_share.py; None: no cap).
        self.tables_per_player = tables_per_player
        self.bots_per_player = bots_per_player  # bots at the tables one player opened
        # `kismet`'s own host: a game with one human pauses while they are away, and waits
        # for them (server/table_share.py), across restarts too.
        self.pause_alone = pause_alone
        # The passes the ssh and web doors issue for their sessions (server/doors/door_pass.py).
        self.door_passes = DoorPasses()
        self.bot_factory = bot_factory
        self.max_bots = max_bots
        self._players: dict[str, Player] = {}  # token -> player
        self.client_ids: Iterator[int] = itertools.count(1)
        self._tables: dict[int, Table] = {}
        # The owner's removals and the unready-seat timers (server/steering.py).
        self.steering = Steering(self._players, self._tables, self.now_ms)
        self.table_list = TableListFeed(self._tables)  # pushed to who asked for it
        self.bot_tasks: set[asyncio.Task[None]] = set()
        self.port: int | None = None
        self.bind: str | None = None
        self._server: asyncio.base_events.Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self.desyncs = 0  # digests from clients that did not match (for tests and logs)
        # What start-up resumed and set aside (server/resume.py), for the CLI to print; and
        # token -> words for the players of a set-aside table (or of a game closed while they
        # were away, server/table_share.py), told at hello.
        self.resumed: list[str] = []
        self.set_aside_lines: list[str] = []
        self.set_aside: dict[str, ToldLater] = {}
        self._mono0 = time.monotonic()
        self._wall0 = int(time.time() * 1000)

    # ---- what it holds ----------------------------------------------------------------------
    @property
    def players(self) -> dict[str, Player]:
        return self._players

    @property
    def tables(self) -> dict[int, Table]:
        return self._tables

    @property
    def connections(self) -> set[Connection]:
        return self.gate.connections

    @property
    def max_connections(self) -> int:
        return self.gate.max_connections

    # ---- life ------------------------------------------------------------------------------
    def now_ms(self) -> int:
        """Host time: wall-clock ms at start, advanced by the monotonic clock."""
        return self._wall0 + int((time.monotonic() - self._mono0) * 1000)

    def claim_state_folder(self) -> None:
        """Take the state folder's lock, or raise StateFolderBusy (words naming the host that
        has it). start() claims it too; a caller that touches the folder first claims early."""
        if self.state_lock is None:
            self.state_lock = StateLock.acquire(self.store.root, self.program)

    async def start(self, bind: str = "0.0.0.0", port: int = 0) -> None:
        self.claim_state_folder()
        assert self.state_lock is not None  # claimed, or StateFolderBusy was raised
        self.bind = bind
        try:
            self._server = await asyncio.get_running_loop().create_server(
                lambda: Connection(self.gate), bind, port
            )
        except BaseException:
            self.release_state_folder()
            raise
        self.port = self._server.sockets[0].getsockname()[1]
        self.state_lock.write(self.port)
        self.loop = asyncio.get_running_loop()
        self.resumed, self.set_aside_lines = resume.resume_tables(self)
        self.records.start()
        self._sweeper = asyncio.create_task(connection.sweep(self.gate))
        log.info("listening on %s:%s", bind, self.port)

    async def stop(self) -> None:
        self.gate.stopping = True
        if self._server is not None:
            self._server.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.table_list.cancel()
        for task in list(self.bot_tasks):
            task.cancel()
        for conn in list(self.connections):
            conn.error("shutdown")
            conn.close()
        if self.bot_tasks:
            await asyncio.gather(*self.bot_tasks, return_exceptions=True)
        for table in self.tables.values():
            table.close()
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 2)
            except (TimeoutError, Exception):
                pass
        await asyncio.to_thread(self.store.close)  # the flushes asked for are done
        await asyncio.to_thread(self.records.close)  # its last games written before the lock goes
        self.release_state_folder()
        for handler in logging.getLogger().handlers:
            handler.flush()

    def release_state_folder(self) -> None:
        if self.state_lock is not None:
            self.state_lock.release()
            self.state_lock = None

    def connect_address(self) -> str:
        """Where an in-process bot should connect to reach this host."""
        if self.bind in (None, "", "0.0.0.0", "::"):
            return "127.0.0.1"
        return self.bind

    def host_key(self) -> bytes | None:
        return self.store.identity.shown_key()

    def can_run_bots(self) -> bool:
        return self.bot_factory is not None

    def bot_levels(self) -> Collection[str] | None:
        levels: Collection[str] | None = getattr(self.bot_factory, "levels", None)
        return levels

    async def open_own_stream(
        self, address: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """How the host's own bots connect: counted against no address (server/connection.py)."""
        return await connection.own_connection(self.gate, address, port)

    def spawn_bot(self, table: Table, seat: Seat) -> None:
        assert seat.bot is not None  # a reserved bot seat
        task = self.bot_factory(self, table.id, seat.bot, seat.token) if self.bot_factory else None
        if task is not None:
            self.bot_tasks.add(task)
            task.add_done_callback(self.bot_tasks.discard)

    # ---- what a table asks of the host -----------------------------------------------------
    def tables_changed(self) -> None:
        self.table_list.changed()

    def store_game(self, table: Table, header: Header) -> GameWriter:
        return resume.store_game(self, table, header)

    @property
    def evening(self) -> Evening:
        return self._evening

    def records_id_of(self, seat: Seat) -> str | None:
        """The records' id of the player in `seat` (server/records/proof.py)."""
        if seat.bot:
            return bot_id(seat.bot)
        player = self.players.get(seat.token)
        return player.records_id() if player is not None else None

    def game_ended(self, table: Table, log_path: Path, tokens: list[str]) -> None:
        """A game's log is finished on disk: the records take it in (off the loop), and the
        table's members then see each seat's rating change or new best."""
        loop = self.loop

        def recorded(outcomes: list[SeatOutcome] | None) -> None:  # on the records' thread
            if outcomes and loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._outcomes_arrived, table, tokens, outcomes)

        self.records.game_ended(log_path, recorded)

    def _outcomes_arrived(
        self, table: Table, tokens: list[str], outcomes: list[SeatOutcome]
    ) -> None:
        if self.gate.stopping or self.tables.get(table.id) is not table or table.state != FINISHED:
            return  # the table went on (or closed) meanwhile
        table.outcomes = {tokens[o.seat]: o.shown() for o in outcomes if o.seat < len(tokens)}
        table.send_table()

    def close_table(self, table: Table, words: str | None = None) -> None:
        lobby.close_table(self, table, words)

    # ---- from server/connection.py -----------------------------------------------------------
    def _ended(self, conn: Connection) -> None:
        self.table_list.forget(conn)
        handshake.dropped(self, conn)

    def handle(self, conn: Connection, message: dict) -> None:
        """One message, handled to completion."""
        re = request_id(message)
        try:
            parsed = parse_client(message)
            kind = parsed["type"]
            if conn.player is None and kind not in ("hello", "ping"):
                raise ProtocolError("hello_first")
            HANDLERS[kind](self, conn, parsed, re)
        except Refusal as exc:  # the wire's and the engine's alike: each says its code and kind
            conn.error(exc.code, exc.words, re, exc.kind)
            if isinstance(exc, ProtocolError) and exc.fatal:
                conn.close()
        except Exception:
            log.exception("handling %r failed", message.get("type"))
            conn.error("internal", re=re)
