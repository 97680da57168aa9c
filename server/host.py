"""The host: listener, connections, players, lobby, and the requests that steer tables.

Usable in-process (tests, the single-player app) as well as from the `kismet-host` CLI:

    host = Host(state_dir=path, bot_factory=None)
    await host.start("127.0.0.1", 0)     # port 0: any free port; see host.port
    ...
    await host.stop()

Every handler runs to completion without awaiting, so the actions of one table are stamped
and broadcast in exactly the order the event loop read them off the sockets.
`bot_factory(host, table_id, level, token)` (optional) starts a bot client for a reserved
seat and returns its asyncio task; the host cancels the tasks when it stops.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time

from kismet_tui.rules import IllegalAction, game_module, normalize_options
from protocol import limits
from protocol.actions import build_action
from protocol.errors import ProtocolError
from protocol.framing import FROM_CLIENT, FrameReader, encode
from protocol.messages import parse_client, request_id

from . import steering
from .chance import valid_entropy
from .resume import resume_tables
from .store import DEFAULT_KEEP_GAMES, GameWriter, Store, StoreError
from .table import PLAYING, Seat, Table

log = logging.getLogger("kismet.host")

# How long a start waits for the table's bots to connect before it goes ahead without them.
BOT_SEATING_WAIT_S = 5.0
DEFAULT_MAX_PER_ADDRESS = 8


def address_of(peer) -> str | None:
    """The IP address of a peer name as asyncio gives it, IPv4-mapped IPv6 unmapped."""
    if not isinstance(peer, tuple) or not peer:
        return None
    address = str(peer[0])
    return address[7:] if address.startswith("::ffff:") else address


def is_loopback(address: str | None) -> bool:
    import ipaddress
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class Player:
    """Who someone is across reconnections: their token, id and name."""

    __slots__ = ("token", "client_id", "name", "conn", "table")

    def __init__(self, token: str, client_id: int, name: str):
        self.token = token
        self.client_id = client_id
        self.name = name
        self.conn: Connection | None = None
        self.table: Table | None = None


class Connection(asyncio.Protocol):
    """One client's connection: frames are handled as they arrive (Host._received)."""

    __slots__ = ("host", "transport", "frames", "player", "tokens", "refilled", "strikes",
                 "last_heard", "opened", "closed", "peer", "last_replay", "counted")

    def __init__(self, host):
        self.host = host
        self.transport: asyncio.Transport | None = None
        self.frames = FrameReader(FROM_CLIENT)
        self.player: Player | None = None
        self.tokens = float(limits.RATE_BURST)
        self.refilled = time.monotonic()
        self.strikes = 0
        self.last_heard = self.opened = time.monotonic()
        self.closed = False
        self.peer = None
        self.last_replay = 0.0
        self.counted: str | None = None  # the address this connection counts against

    # ---- asyncio.Protocol ----------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.peer = transport.get_extra_info("peername")
        self.host._opened(self)

    def data_received(self, data: bytes) -> None:
        self.host._received(self, data)

    def connection_lost(self, exc) -> None:
        self.closed = True
        self.host._ended(self)

    def send(self, message: dict) -> None:
        self.send_bytes(encode(message))

    def send_bytes(self, frame: bytes) -> None:
        if self.closed:
            return
        transport = self.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > limits.MAX_SEND_BUFFER:
            log.warning("dropping %s: it does not read what it is sent", self.peer)
            self.close()
            return
        transport.write(frame)

    def error(self, code: str, words: str | None = None, re: int | None = None) -> None:
        err = ProtocolError(code, words)
        message = {"type": "error", "code": code, "words": err.words}
        if re is not None:
            message["re"] = re
        self.send(message)

    def within_rate(self) -> bool:
        """Token bucket: True if this message may be handled now."""
        now = time.monotonic()
        self.tokens = min(limits.RATE_BURST,
                          self.tokens + (now - self.refilled) * limits.RATE_PER_SECOND)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            if self.tokens >= limits.RATE_BURST - 1:
                self.strikes = 0
            return True
        self.strikes += 1
        return False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.transport.close()


class Host:
    def __init__(self, state_dir, bot_factory=None, max_bots: int | None = None, disk=None,
                 max_per_address: int | None = DEFAULT_MAX_PER_ADDRESS, cap_loopback: bool = False,
                 max_connections: int = limits.MAX_CONNECTIONS, keep_games: int | None = DEFAULT_KEEP_GAMES):
        self.store = Store(state_dir, disk, keep_games)
        # Fair share: at most this many connections from one address (None: no cap). Loopback
        # is exempt unless cap_loopback: the host's own bots, players logged into this machine
        # and the sessions of an ssh or web front end all arrive from there.
        self.max_per_address = max_per_address
        self.cap_loopback = cap_loopback
        self.max_connections = max_connections
        self.per_address: dict[str, int] = {}
        # server/steering.py: who each table's owner removed, and the unready-seat timers.
        self.removed_from: dict[int, set[str]] = {}
        self.unready_timers: dict[int, asyncio.TimerHandle] = {}
        self.unready_limit_s = steering.UNREADY_LIMIT_S
        self.bot_factory = bot_factory
        self.max_bots = max_bots
        self.players: dict[str, Player] = {}        # token -> player
        self.connections: set[Connection] = set()
        self.tables: dict[int, Table] = {}
        self.bot_tasks: set[asyncio.Task] = set()
        self.port: int | None = None
        self.bind: str | None = None
        self._server: asyncio.base_events.Server | None = None
        self._sweeper: asyncio.Task | None = None
        self.desyncs = 0   # digests from clients that did not match (for tests and logs)
        # What start-up resumed and set aside (server/resume.py), for the CLI to print; and
        # token -> words for the players of a set-aside table, told at hello.
        self.resumed: list[str] = []
        self.set_aside_lines: list[str] = []
        self.set_aside: dict[str, str] = {}
        self._next_client = 1
        self._stopping = False
        self._mono0 = time.monotonic()
        self._wall0 = int(time.time() * 1000)

    # ---- life ------------------------------------------------------------------------------
    def now_ms(self) -> int:
        """Host time: wall-clock ms at start, advanced by the monotonic clock."""
        return self._wall0 + int((time.monotonic() - self._mono0) * 1000)

    async def start(self, bind: str = "0.0.0.0", port: int = 0) -> None:
        self.bind = bind
        self._server = await asyncio.get_running_loop().create_server(
            lambda: Connection(self), bind, port)
        self.port = self._server.sockets[0].getsockname()[1]
        self._resume_tables()
        self._sweeper = asyncio.create_task(self._sweep())
        log.info("listening on %s:%s", bind, self.port)

    async def stop(self) -> None:
        self._stopping = True
        if self._server is not None:
            self._server.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
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
            except (asyncio.TimeoutError, Exception):
                pass
        for handler in logging.getLogger().handlers:
            handler.flush()

    def connect_address(self) -> str:
        """Where an in-process bot should connect to reach this host."""
        if self.bind in (None, "", "0.0.0.0", "::"):
            return "127.0.0.1"
        return self.bind

    def store_game(self, table: Table, header: dict) -> GameWriter:
        path = self.store.new_game_file(table.id, table.ruleset)
        writer = self.store.open_game(path, header, table.id)
        try:
            self._save_table(table, path)
        except Exception:
            writer.close()
            path.unlink(missing_ok=True)  # a game that never started leaves no log
            raise
        return writer

    def _save_table(self, table: Table, path) -> None:
        self.store.save_table(table.id, {
            "id": table.id, "ruleset": table.ruleset, "options": table.options,
            "owner": table.owner, "games_played": table.games_played,
            "seats": [{"token": s.token, "name": s.name, "bot": s.bot} for s in table.seats],
            "game_file": path.name,
            # The running game's secret, kept beside the tokens (owner-only file) so a
            # restarted host can go on drawing; gone when the game ends and reveals it.
            "server_seed": table.secret.server_seed.hex(),
        })

    def _resume_tables(self) -> None:
        self.resumed, self.set_aside_lines = resume_tables(self)
        self.store.prune_games()

    def _spawn_bot(self, table: Table, seat: Seat) -> None:
        task = self.bot_factory(self, table.id, seat.bot, seat.token) if self.bot_factory else None
        if task is not None:
            self.bot_tasks.add(task)
            task.add_done_callback(self.bot_tasks.discard)

    async def _sweep(self) -> None:
        """Close connections that never said hello, or went silent."""
        while True:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            for conn in list(self.connections):
                if conn.player is None and now - conn.opened > limits.HELLO_TIMEOUT_S:
                    conn.error("hello_first")
                    conn.close()
                elif now - conn.last_heard > limits.IDLE_TIMEOUT_S:
                    conn.error("idle")
                    conn.close()

    # ---- one connection ---------------------------------------------------------------------------
    def _opened(self, conn: Connection) -> None:
        if self._stopping:
            conn.error("shutdown")
            conn.close()
            return
        if len(self.connections) >= self.max_connections:
            conn.error("full", f"The host is full right now: it holds {self.max_connections} "
                       f"connections, its most. Please try again later.")
            conn.close()
            return
        address = address_of(conn.peer)
        capped = self.max_per_address is not None and address is not None \
            and (self.cap_loopback or not is_loopback(address))
        if capped:
            if self.per_address.get(address, 0) >= self.max_per_address:
                conn.error("full", f"Too many connections from your address: the host takes "
                           f"{self.max_per_address} from one address. Close one and try again.")
                conn.close()
                return
            self.per_address[address] = self.per_address.get(address, 0) + 1
            conn.counted = address
        self.connections.add(conn)

    def _received(self, conn: Connection, data: bytes) -> None:
        """Handle every whole frame that has arrived, in order, each to completion."""
        if conn not in self.connections:
            return  # refused at the door, or already ended
        conn.frames.feed(data)
        try:
            while not conn.closed:
                try:
                    message = conn.frames.next_message()
                except ProtocolError as exc:
                    conn.error(exc.code, exc.words)
                    if exc.fatal:
                        break
                    continue
                if message is None:
                    return  # the rest has not arrived yet
                conn.last_heard = time.monotonic()
                if not conn.within_rate():
                    # Each dropped message is answered, so a client never waits in vain.
                    conn.error("slow_down", re=request_id(message))
                    if conn.strikes > limits.FLOOD_STRIKES:
                        conn.error("slow_down", "Too many messages: closing this connection.")
                        break
                    continue
                self._handle(conn, message)
        except Exception:
            log.exception("connection %s failed", conn.peer)
        # Closed while handling its own messages (a fatal error, a flood, a replacement):
        # the player leaves now, before anything else runs.
        self._ended(conn)

    def _ended(self, conn: Connection) -> None:
        """A connection is over: once, whichever of the host or the peer ended it."""
        conn.close()
        if conn in self.connections:
            self.connections.discard(conn)
            if conn.counted is not None:
                left = self.per_address.get(conn.counted, 1) - 1
                if left > 0:
                    self.per_address[conn.counted] = left
                else:
                    self.per_address.pop(conn.counted, None)
                conn.counted = None
            self._dropped(conn)

    def _handle(self, conn: Connection, message: dict) -> None:
        re = request_id(message)
        try:
            parsed = parse_client(message)
            kind = parsed["type"]
            if conn.player is None and kind not in ("hello", "ping"):
                raise ProtocolError("hello_first")
            getattr(self, "_on_" + kind)(conn, parsed, re)
        except ProtocolError as exc:
            conn.error(exc.code, exc.words, re)
            if exc.fatal:
                conn.close()
        except IllegalAction as exc:
            conn.error("illegal", exc.reason, re)
        except Exception:
            log.exception("handling %r failed", message.get("type"))
            conn.error("internal", re=re)

    def _ok(self, conn: Connection, re: int | None) -> None:
        if re is not None:
            conn.send({"type": "ok", "re": re})

    # ---- handshake -----------------------------------------------------------------------------
    def _on_hello(self, conn: Connection, msg: dict, re) -> None:
        if conn.player is not None:
            raise ProtocolError("bad_message", "You already said hello.")
        if msg["version"] != limits.PROTOCOL_VERSION:
            older = msg["version"] < limits.PROTOCOL_VERSION
            raise ProtocolError("version", f"This host speaks protocol version "
                                f"{limits.PROTOCOL_VERSION}, your client {msg['version']}. "
                                + ("Please update your client: since version 2 no client learns "
                                   "a die or a card before it is shown." if older else
                                   "Please use matching versions."), fatal=True)
        token = msg["token"]
        player = self.players.get(token) if token else None
        if player is None and token:
            table = self._table_holding(token)
            if table is not None:  # a reserved bot seat, or a seat from before a restart
                player = self._new_player(msg["name"], token)
                player.table = table
        if player is None:
            player = self._new_player(msg["name"])
        if player.conn is not None and player.conn is not conn:
            old = player.conn
            player.conn = None  # so its closing does not mark the seat away
            old.error("replaced")
            old.close()
        player.name = self._fixed_name(player) or msg["name"]
        player.conn = conn
        conn.player = player
        table = player.table
        conn.send({
            "type": "welcome", "re": re, "client_id": player.client_id, "token": player.token,
            "name": player.name, "version": limits.PROTOCOL_VERSION, "now": self.now_ms(),
            "table": table.id if table else None,
        })
        if table is not None:
            self._arrive(table, player, rejoin=True)
        elif token and token in self.set_aside:
            conn.error("no_table", self.set_aside.pop(token))

    def _table_holding(self, token: str) -> Table | None:
        for table in self.tables.values():
            if table.seat_of(token) is not None:
                return table
        return None

    def _fixed_name(self, player: Player) -> str | None:
        """A seat's name that a returning player keeps: in a running game's header, or the
        name the host gave a bot seat."""
        table = player.table
        seat = table.seat_of(player.token) if table is not None else None
        if seat is None:
            return None
        if table.state == PLAYING or table.seats[seat].bot:
            return table.seats[seat].name
        return None

    def _new_player(self, name: str, token: str | None = None) -> Player:
        player = Player(token or secrets.token_urlsafe(18), self._next_client, name)
        self._next_client += 1
        self.players[player.token] = player
        return player

    def _on_ping(self, conn: Connection, msg: dict, re) -> None:
        conn.send({"type": "pong", "re": re, "now": self.now_ms()})

    # ---- lobby -------------------------------------------------------------------------------------
    def _on_list_tables(self, conn: Connection, msg: dict, re) -> None:
        conn.send({"type": "tables", "re": re,
                   "tables": [table.summary() for table in self.tables.values()]})

    def _on_create_table(self, conn: Connection, msg: dict, re) -> None:
        player = conn.player
        if player.table is not None:
            raise ProtocolError("already_at_table")
        if len(self.tables) >= limits.MAX_TABLES:
            raise ProtocolError("full", "The host has as many tables as it can hold. Please join one.")
        try:
            options = normalize_options(msg["ruleset"], msg["options"])
            cls = game_module(msg["ruleset"]).GAME
        except IllegalAction as exc:
            raise ProtocolError("bad_options", exc.reason) from None
        bots = msg["bots"]
        if bots and self.bot_factory is None:
            raise ProtocolError("no_bots")
        if bots and self.max_bots is not None and self._bot_count() + len(bots) > self.max_bots:
            raise ProtocolError("no_bots", f"This host runs at most {self.max_bots} bots at once.")
        if 1 + len(bots) > cls.MAX_SEATS:
            raise ProtocolError("bad_options", f"{msg['ruleset']} seats at most {cls.MAX_SEATS} players.")
        known = self._known_levels()
        for level in bots:
            if known is not None and level not in known:
                raise ProtocolError("bad_options", f"There is no bot level '{level}'. "
                                    f"The levels are: {', '.join(sorted(known))}.")
        table = Table(self, self.store.allocate_table_id(), msg["ruleset"], options, player.token)
        self.tables[table.id] = table
        table.seats.append(Seat(player.token, player.name))
        player.table = table
        for number, level in enumerate(bots, start=1):
            seat = Seat(secrets.token_urlsafe(18), f"Bot {number} ({level})", bot=level, ready=True)
            table.seats.append(seat)
        table.send_table()
        for seat in table.seats:
            if seat.bot:
                self._spawn_bot(table, seat)
        self._ok(conn, re)

    def _known_levels(self):
        return getattr(self.bot_factory, "levels", None)

    def _bot_count(self) -> int:
        return sum(1 for t in self.tables.values() for s in t.seats if s.bot)

    def _on_join_table(self, conn: Connection, msg: dict, re) -> None:
        player = conn.player
        table = self.tables.get(msg["table"])
        if table is None:
            raise ProtocolError("no_table", f"There is no table {msg['table']}.")
        if player.table is not None and player.table is not table:
            raise ProtocolError("already_at_table")
        seated = table.seat_of(player.token) is not None
        if msg["spectator"] and not seated:
            if player.token not in table.watchers:
                table.watchers.append(player.token)
        elif not seated:
            if player.token in self.removed_from.get(table.id, ()):
                raise ProtocolError("removed", "The owner removed you from this table: you can "
                                    "watch it, or sit at another.")
            if table.state == PLAYING:
                raise ProtocolError("playing", "A game is running at this table: you can watch it.")
            if player.token in table.watchers:
                table.watchers.remove(player.token)
            if len(table.seats) >= table.max_seats():
                raise ProtocolError("table_full", f"Table {table.id} has no free seat: "
                                    f"{len(table.seats)} of {table.max_seats()} are taken.")
            table.seats.append(Seat(player.token, player.name))
            if table.owner is None:
                table.owner = player.token
        player.table = table
        self._arrive(table, player, rejoin=False)
        self._ok(conn, re)

    def _arrive(self, table: Table, player: Player, rejoin: bool) -> None:
        """A member (new or returning) is at the table: tell everyone, catch them up."""
        seat = table.seat_of(player.token)
        if seat is not None and table.state != PLAYING and not table.seats[seat].bot:
            table.seats[seat].name = player.name
        table.send_table()
        if table.header is not None:
            player.conn.send(table.game_message())
        if table.state == PLAYING and seat is not None and table.game.away[seat]:
            table.stamp(-1, {"type": "back", "seat": seat})
            table.send_table()
        if table.pending_start is not None and not self._bots_missing(table):
            self._start_now(table)

    def _on_leave(self, conn: Connection, msg: dict, re) -> None:
        player = conn.player
        if player.table is None:
            raise ProtocolError("not_at_table")
        self._depart(player)
        self._ok(conn, re)

    def _depart(self, player: Player) -> None:
        """The player leaves their table (explicitly or by dropping)."""
        table = player.table
        player.table = None
        if table is None:
            return
        if player.token in table.watchers:
            table.watchers.remove(player.token)
        seat = table.seat_of(player.token)
        if seat is not None:
            if table.state == PLAYING:
                if not table.game.away[seat]:
                    table.stamp(-1, {"type": "away", "seat": seat})
            else:
                del table.seats[seat]
        if table.owner == player.token and (table.state != PLAYING or seat is None):
            self.pass_ownership(table)
        if not any(table.connected(t) for t in table.member_tokens() if not self._is_bot(table, t)):
            if table.state != PLAYING:
                self.close_table(table)
                return
        table.send_table()

    def _is_bot(self, table: Table, token: str) -> bool:
        seat = table.seat_of(token)
        return seat is not None and table.seats[seat].bot is not None

    def pass_ownership(self, table: Table) -> None:
        for seat in table.seats:
            if not seat.bot and table.connected(seat.token):
                table.owner = seat.token
                return
        table.owner = None

    def close_table(self, table: Table) -> None:
        table.state = "closed"
        table.broadcast({"type": "table", "table": table.describe()})
        for token in list(table.member_tokens()):
            member = self.players.get(token)
            if member is not None and member.table is table:
                member.table = None
        table.close()
        self.store.drop_table(table.id)
        self.tables.pop(table.id, None)
        steering.cancel(self, table)
        self.removed_from.pop(table.id, None)

    def _dropped(self, conn: Connection) -> None:
        player = conn.player
        if player is None or player.conn is not conn:
            return
        player.conn = None
        if self._stopping:
            return
        table = player.table
        seat = table.seat_of(player.token) if table is not None else None
        if table is not None and table.state == PLAYING and seat is not None:
            # Keep the player at the table: reconnecting with the token brings them back.
            if not table.game.away[seat]:
                table.stamp(-1, {"type": "away", "seat": seat})
            table.send_table()
            return
        if table is not None:
            self._depart(player)
        if self._table_holding(player.token) is None:
            # Nothing to come back to: forget the player, so connections cannot pile up.
            self.players.pop(player.token, None)

    def _seated(self, conn: Connection) -> tuple[Table, int]:
        table = conn.player.table
        if table is None:
            raise ProtocolError("not_at_table")
        seat = table.seat_of(conn.player.token)
        if seat is None:
            raise ProtocolError("not_seated")
        return table, seat

    def _on_ready(self, conn: Connection, msg: dict, re) -> None:
        table, seat = self._seated(conn)
        if table.state == PLAYING:
            raise ProtocolError("playing")
        table.seats[seat].ready = msg["ready"]
        table.seats[seat].entropy = valid_entropy(msg.get("entropy")) if msg["ready"] else None
        table.send_table()
        self._ok(conn, re)
        if table.pending_start is not None and not self._bots_missing(table):
            self._start_now(table)  # the last bot's entropy arrived

    def _on_reorder(self, conn: Connection, msg: dict, re) -> None:
        table = conn.player.table
        if table is None:
            raise ProtocolError("not_at_table")
        if table.owner != conn.player.token:
            raise ProtocolError("not_owner", "Only the table's owner can change the seat order.")
        if table.state == PLAYING:
            raise ProtocolError("playing", "The seats cannot move while a game is running.")
        order = msg["order"]
        if sorted(order) != list(range(len(table.seats))):
            raise ProtocolError("bad_message", f"'order' must list each seat 0 to "
                                f"{len(table.seats) - 1} once.")
        table.seats = [table.seats[i] for i in order]
        table.send_table()
        self._ok(conn, re)

    def _on_start(self, conn: Connection, msg: dict, re) -> None:
        table = conn.player.table
        if table is None:
            raise ProtocolError("not_at_table")
        if table.owner != conn.player.token:
            raise ProtocolError("not_owner", "Only the table's owner can start the game.")
        if table.state == PLAYING:
            raise ProtocolError("playing", "The game has already started.")
        waiting = [s.name for s in table.seats if not s.ready and s.token != table.owner]
        if waiting:
            raise ProtocolError("not_ready", f"Not everyone is ready: waiting for {', '.join(waiting)}. "
                                f"{steering.start_asked(self, table)}")
        steering.cancel(self, table)
        if table.pending_start is not None:
            raise ProtocolError("playing", "The game is starting: the bots are sitting down.")
        owner_seat = table.seat_of(conn.player.token)
        if owner_seat is not None and msg.get("entropy") is not None:
            table.seats[owner_seat].entropy = valid_entropy(msg["entropy"])
        self._check_seat_count(table)
        if self._bots_missing(table):
            # Bots are real clients and may still be connecting: a game started now would
            # open with every bot "away" and "back" in the log. Wait for them, briefly.
            table.pending_start = asyncio.get_running_loop().call_later(
                BOT_SEATING_WAIT_S, self._start_now, table)
        else:
            words = self._start_game(table, told=conn)
            if words is not None:
                raise ProtocolError("cannot_start", words)
        self._ok(conn, re)

    @staticmethod
    def _check_seat_count(table: Table) -> None:
        cls = game_module(table.ruleset).GAME
        if not cls.MIN_SEATS <= len(table.seats) <= cls.MAX_SEATS:
            raise ProtocolError("not_ready", f"{table.ruleset} needs {cls.MIN_SEATS} to "
                                f"{cls.MAX_SEATS} players; {len(table.seats)} sit here.")

    def _bots_missing(self, table: Table) -> bool:
        """A bot is not seated yet, or has not sent its entropy for the game (bots are clients
        and add theirs like everyone; the start waits for them briefly, then goes on)."""
        return any(seat.bot and (not table.connected(seat.token) or seat.entropy is None)
                   for seat in table.seats)

    def _start_now(self, table: Table) -> None:
        """Start a game whose start waited for its bots (all seated, or the wait ran out)."""
        if table.pending_start is not None:
            table.pending_start.cancel()
            table.pending_start = None
        if table.state in (PLAYING, "closed") or self.tables.get(table.id) is not table:
            return
        try:
            self._check_seat_count(table)
        except ProtocolError as exc:
            table.broadcast({"type": "error", "code": exc.code, "words": exc.words})
            return
        self._start_game(table)

    def _start_game(self, table: Table, told=None) -> str | None:
        """Start the table's game; None, or the words every member (but `told`, who asked
        and gets them as the answer) was sent when the start failed and the table stayed
        where it was."""
        state, ready = table.state, [seat.ready for seat in table.seats]
        try:
            table.start_game()
            return None
        except StoreError as exc:
            words = (f"The game could not start: the host cannot save it ({exc.why}). "
                     f"The table stays in the lobby.")
            log.error("table %s: the game could not start: %s", table.id, exc.why)
        except Exception:
            log.exception("table %s: the game could not start", table.id)
            words = "The game could not start: something went wrong on the host. The table stays in the lobby."
        table.abandon_start(state, ready, words, told=told)
        return words

    def _on_remove(self, conn: Connection, msg: dict, re) -> None:
        table = conn.player.table
        if table is None:
            raise ProtocolError("not_at_table")
        steering.check_removable(self, table, conn.player.token, msg["seat"])
        name = table.seats[msg["seat"]].name
        steering.remove_seat(self, table, msg["seat"],
                             f"{conn.player.name}, the owner, removed you from table {table.id}.",
                             f"{conn.player.name} removed {name} from the table.")
        self._ok(conn, re)

    def _on_chat(self, conn: Connection, msg: dict, re) -> None:
        table = conn.player.table
        if table is None:
            raise ProtocolError("not_at_table", "Chat happens at a table: join one first.")
        if msg["text"]:
            table.broadcast({"type": "chat", "from": conn.player.client_id,
                             "name": conn.player.name, "text": msg["text"], "t": self.now_ms()})
        self._ok(conn, re)

    # ---- the game --------------------------------------------------------------------------------
    def _on_act(self, conn: Connection, msg: dict, re) -> None:
        table, seat = self._seated(conn)
        if table.state != PLAYING:
            raise ProtocolError("no_game")
        # Re-encoded from the validated fields only: nothing else the client sent is kept.
        table.stamp(seat, build_action(table.ruleset, msg["action"]), sender=conn, re=re)

    def _on_digest(self, conn: Connection, msg: dict, re) -> None:
        table = conn.player.table
        if table is None or table.header is None:
            raise ProtocolError("no_game")
        seq = msg["seq"]
        if seq > len(table.events):
            raise ProtocolError("bad_message", f"Event {seq} has not happened yet.")
        # A digest off the checkpoints costs the host a replay: one per second per connection.
        if not table.digest_ready(seq):
            now = time.monotonic()
            if now - conn.last_replay < 1.0:
                self._ok(conn, re)  # not checked: too soon after the last replay
                return
            conn.last_replay = now
        mine = table.digest_at(seq)
        if mine != msg["digest"]:
            self.desyncs += 1
            log.warning("desync at table %s seq %s for client %s", table.id, seq, conn.player.client_id)
            conn.send({"type": "desync", "re": re, "seq": seq, "digest": mine})
            conn.send(table.game_message())
        else:
            self._ok(conn, re)

    def _on_resync(self, conn: Connection, msg: dict, re) -> None:
        table = conn.player.table
        if table is None or table.header is None:
            raise ProtocolError("no_game")
        conn.send(table.game_message(re))
