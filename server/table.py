"""One table: its seats, its owner, and the game it runs, stamped, logged and broadcast.

A table is a shard: it shares nothing with other tables but the host's clock and its send
functions. Every accepted action gets the next sequence number and the host's time (never
decreasing), goes to the engine first (a refusal raises IllegalAction and nothing is sent),
then to the log, then to every member in the same order. Deadlines become `timeout` events
stamped by a timer on the host's event loop.

Chance (protocol version 3): the table's `secret` (server/chance.py) is the next game's; its
commit is in `describe()`. The engine draws from the host's secret stream; each event carries
the values it drew (`chance`), and the game's last event and every later `game` message
reveal `server_seed`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol, cast

from kismet_tui.rules import HOST, Game, IllegalAction, SeededRNG, game_module, new_game, replay
from kismet_tui.rules.game_types import EndRecord, Event, Header, Result
from kismet_tui.rules.verify import replay_with_stream
from protocol.actions import AnyAction
from protocol.checkpoints import is_checkpoint
from protocol.errors import ProtocolError, error_message
from protocol.framing import encode, frame_of, map_entries
from protocol.host_messages import (
    Chat,
    GameMessage,
    Outcome,
    TableShown,
    TableSummary,
    ToClient,
)

from .chance import GameSecret
from .chat import TableChat
from .evening import Evening
from .link import Link
from .misses import MISSES_TO_IDLE, Misses
from .reaction import THROW_ANSWERED, ThrowShown, shows_a_throw
from .saving import Outgoing, Saving
from .store import GameWriter, Store, StoreError

log = logging.getLogger("kismet.host")

LOBBY, PLAYING, FINISHED, CLOSED = "lobby", "playing", "finished", "closed"
_EVENT_TYPE = map_entries({"type": "event"})  # how every `event` message begins
DIGEST_CACHE = 64


class Seat:
    __slots__ = ("token", "name", "bot", "ready", "entropy")

    def __init__(self, token: str, name: str, bot: str | None = None, ready: bool = False):
        self.token = token
        self.name = name
        self.bot = bot
        self.ready = ready
        self.entropy: bytes | None = None  # sent with ready (or start) for the next game


class Member(Protocol):
    """A player as a table sees them (server/player.py's Player)."""

    @property
    def client_id(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def conn(self) -> Link | None: ...

    @property
    def table(self) -> object: ...  # the table they are at now, if any


class TableHost(Protocol):
    """What a table is given by the host (server/host.py): the players, the clock, the
    disk, and whom to tell of what happened (a game's end, the table emptied)."""

    @property
    def players(self) -> Mapping[str, Member]: ...

    @property
    def store(self) -> Store: ...

    def now_ms(self) -> int: ...

    def records_id_of(self, seat: Seat) -> str | None: ...

    @property
    def evening(self) -> Evening: ...

    def store_game(self, table: Table, header: Header) -> GameWriter: ...

    def tables_changed(self) -> None:
        """Something the table list shows of a table may have changed."""

    def game_ended(self, table: Table, log_path: Path, tokens: list[str]) -> None:
        """A game's log is finished on disk; `tokens` are its seats' players."""

    def close_table(self, table: Table, words: str | None = None) -> None:
        """The table closes (nobody but bots is left at it once its game ended, or its
        players all left it); its watchers are told `words`."""


class Table:
    def __init__(
        self, host: TableHost, table_id: int, ruleset: str, options: dict, owner: str | None
    ) -> None:
        self.host = host
        self.id = table_id
        self.ruleset = ruleset
        self.options = options
        self.owner = owner  # token of the owner
        self.seats: list[Seat] = []
        self.watchers: list[str] = []  # tokens of spectators
        self.state = LOBBY
        # The game and its log header: both set by start_game and resume (before the state
        # becomes PLAYING), both cleared by abandon_start, and kept once FINISHED until the
        # next start. `running` and `running_header` give them where the state says they exist.
        self.game: Game | None = None
        self.header: Header | None = None
        self.events: list[Event] = []
        self.games_played = 0
        self.last_t = 0
        self.writer: GameWriter | None = None
        self._digests: dict[int, str] = {}
        self._game_frame: tuple[tuple, bytes] | None = None  # (what it showed, the frame)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: int | None = None  # the deadline (host ms) `_timer` fires for
        # A start that waits for the table's bots to connect (server/starting.py).
        self.pending_start: asyncio.TimerHandle | None = None
        # Who asked for that start, and their request's id: answered once the game starts or
        # cannot (docs/protocol.md: `ok` after `table` and `game`).
        self.start_asked: tuple[Link, int | None] | None = None
        # The host time at which seats still unready are freed, once the owner asked to
        # start (server/steering.py); shown to members so the unready see it coming.
        self.free_unready_at: int | None = None
        # The one way to the disk: every event, the game's end too, is sent only once the
        # disk has it, and play pauses while the disk refuses (server/saving.py).
        self.saving = Saving(self)
        self.secret = GameSecret()  # the next game's (or the running game's)
        self.revealed: bytes | None = None  # the last finished game's server_seed
        # The fair share (server/table_share.py): whom this table counts against, and the
        # clock that closes a running game nobody human is at any more.
        self.opened_by: tuple[str, ...] = ()
        self.abandoned: asyncio.TimerHandle | None = None
        # The evening's standings: games won since the table opened, by seat token; and the
        # last game's outcome from the records (rating and change, a new best), by token.
        self.outcomes: dict[str, Outcome] = {}
        # When the latest throw was written to each connection: the reaction floor [D20].
        self.throw_shown = ThrowShown()
        # A game paused while its one human is away (`kismet`'s own host, server/
        # table_share.py): the host time it paused at; no timeout is stamped and no seat may
        # act meanwhile. Its clock stood still, so the deadline pending when play goes on is
        # moved on by the pause (`grace`: the engine's deadline, the one the host keeps).
        self.paused_at: int | None = None
        self._shift_pending: int | None = None
        self.grace: tuple[int, int] | None = None
        # Who may say how much here, and whether the owner muted the watchers (server/chat.py).
        self.chat = TableChat()
        # The turns the host played in a row for each player who is here: two, and the seat
        # is marked idle [D31] (server/misses.py).
        self.misses = Misses()

    @property
    def running(self) -> Game:
        """The game started or resumed here: there is one while the table is PLAYING (and
        after, FINISHED, until the next start). Asking in the lobby is a bug in the caller."""
        if self.game is None:
            raise RuntimeError(f"table {self.id} has no game (it is {self.state})")
        return self.game

    @property
    def running_header(self) -> Header:
        """The header of the game `running` gives (set and cleared with it)."""
        if self.header is None:
            raise RuntimeError(f"table {self.id} has no game (it is {self.state})")
        return self.header

    # ---- membership: only these methods change who is here and who owns the table -----------
    def sit(self, token: str, name: str, bot: str | None = None, ready: bool = False) -> Seat:
        """A new seat at the end for `token` (no longer a watcher, if they were one)."""
        self.unwatch(token)
        seat = Seat(token, name, bot, ready)
        self.seats.append(seat)
        return seat

    def unseat(self, index: int) -> Seat:
        """Free seat `index` (between games): the seats after it move up one."""
        return self.seats.pop(index)

    def reorder(self, order: list[int]) -> None:
        """The seats in `order` (each index once, as the caller checked)."""
        self.seats = [self.seats[index] for index in order]

    def rename(self, index: int, name: str) -> None:
        self.seats[index].name = name

    def set_ready(self, index: int, ready: bool, entropy: bytes | None) -> None:
        """A seat's ready mark, with the entropy it adds to the next game (None: not ready)."""
        self.seats[index].ready = ready
        self.seats[index].entropy = entropy if ready else None

    def set_entropy(self, index: int, entropy: bytes | None) -> None:
        """The entropy a seat adds to the next game (the owner's, sent with `start`)."""
        self.seats[index].entropy = entropy

    def watch(self, token: str) -> None:
        if token not in self.watchers:
            self.watchers.append(token)

    def unwatch(self, token: str) -> None:
        if token in self.watchers:
            self.watchers.remove(token)

    def set_owner(self, token: str | None) -> None:
        self.owner = token

    def seat_of(self, token: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.token == token:
                return index
        return None

    def member_tokens(self) -> Iterator[str]:
        for seat in self.seats:
            yield seat.token
        yield from self.watchers

    def connections(self) -> list[Link]:
        """Live connections of members who are at the table now, seats first, then watchers
        (a list made in one pass: asked for every event, to send it to each)."""
        get = self.host.players.get
        found: list[Link] = []
        for token in self.member_tokens():
            player = get(token)
            if player is not None and player.conn is not None and player.table is self:
                found.append(player.conn)
        return found

    def connected(self, token: str) -> bool:
        player = self.host.players.get(token)
        return player is not None and player.conn is not None and player.table is self

    def max_seats(self) -> int:
        return game_module(self.ruleset).GAME.MAX_SEATS

    # ---- what members see -------------------------------------------------------------------
    def describe(self) -> TableShown:
        players = self.host.players
        away = self.game.away if self.game is not None and self.state == PLAYING else None
        idle = self.game.idle if self.game is not None and self.state == PLAYING else None

        def client_id(token: str) -> int | None:
            player = players.get(token)
            return player.client_id if player is not None else None

        now = self.host.now_ms()
        return {
            "id": self.id,
            "ruleset": self.ruleset,
            "options": self.options,
            "state": self.state,
            "owner": client_id(self.owner) if self.owner else None,
            "games_played": self.games_played,
            "commit": self.secret.commit,
            "max_seats": self.max_seats(),
            "free_unready_at": self.free_unready_at,
            "paused": self.paused_at is not None,
            "evening_since": self.host.evening.since(now),  # the seats' `wins` count from then
            "watchers_muted": self.chat.watchers_muted,
            "seats": [
                {
                    "name": seat.name,
                    "client_id": client_id(seat.token),
                    "bot": seat.bot,
                    "ready": seat.ready,
                    "connected": self.connected(seat.token),
                    "away": bool(away[index]) if away is not None else False,
                    # Here but played for by the host until they act [D31].
                    "idle": bool(idle[index]) if idle is not None else False,
                    "wins": self.host.evening.wins_of(self.evening_key(seat), now),
                    "outcome": self.outcomes.get(seat.token),
                }
                for index, seat in enumerate(self.seats)
            ],
            "spectators": [
                {"client_id": client_id(token), "name": players[token].name}
                for token in self.watchers
                if token in players
            ],
        }

    def summary(self) -> TableSummary:
        owner = self.host.players.get(self.owner) if self.owner else None
        return {
            "id": self.id,
            "ruleset": self.ruleset,
            "state": self.state,
            "seats": [seat.name for seat in self.seats],
            "max_seats": self.max_seats(),
            "spectators": len(self.watchers),
            "owner": owner.name if owner else None,
            "paused": self.paused_at is not None,
            # 0: the owner chose no time limit [D31]; None: the game has no turn limit option.
            "turn_limit_ms": self.options.get("turn_limit_ms"),
        }

    def broadcast(self, message: ToClient) -> None:
        frame = encode(message)
        for conn in self.connections():
            conn.send_bytes(frame)

    def broadcast_chat(self, message: Chat) -> None:
        """A chat line to every member: one who has fallen behind is skipped it (counted),
        never sent a backlog without end (server/connection.py `send_chat`)."""
        frame = encode(message)
        for conn in self.connections():
            conn.send_chat(frame)

    def send_table(self) -> None:
        self.broadcast({"type": "table", "table": self.describe()})
        self.host.tables_changed()  # its summary in the lobby's list may have changed

    def game_message(self, re: int | None = None) -> GameMessage:
        message: GameMessage = {
            "type": "game",
            "header": self.running_header,
            "events": self.events,
        }
        if self.revealed is not None and self.state != PLAYING:
            message["server_seed"] = self.revealed  # the game is over: its seed is no secret
        if re is not None:
            message["re"] = re
        return message

    def game_frame(self) -> bytes:
        """game_message() encoded, kept while nothing it shows changes: a client that keeps
        sending wrong digests is answered with the same bytes, not a new encoding each time."""
        # The header itself, not its id (a later game's header could reuse a freed one's id).
        shown = (self.header, len(self.events), self.state, self.revealed)
        cached = self._game_frame
        if cached is None or cached[0][0] is not self.header or cached[0][1:] != shown[1:]:
            cached = self._game_frame = (shown, encode(self.game_message()))
        return cached[1]

    # ---- the game -----------------------------------------------------------------------------
    def start_game(self, options: dict | None = None) -> None:
        """Start the next game, with `options` (default: the table's) in its header."""
        self.cancel_timer()
        t0 = max(self.host.now_ms(), self.last_t)
        names = [seat.name for seat in self.seats]
        entropy = [seat.entropy for seat in self.seats]
        rng = self.secret.stream(entropy)
        options = self.options if options is None else options
        game = new_game(self.ruleset, names, None, options, rng=rng, start_ms=t0)
        header: Header = {
            "ruleset": self.ruleset,
            "seats": names,
            "options": options,
            "t0": t0,
            "commit": self.secret.commit,
            "version": self.secret.version,  # the chance derivation (docs/protocol.md "Chance")
            "entropy": entropy,
            "chance": rng.take_drawn(),  # the draws made creating the game
            "players": [self.host.records_id_of(seat) for seat in self.seats],  # for the records
        }
        self.header, self.game, self.events = header, game, []
        self.misses.clear()
        self.revealed = None
        self.outcomes = {}
        self.last_t = t0
        self._digests.clear()
        self.state = PLAYING
        # May raise (the disk): the start is then abandoned with the ready marks and the
        # entropy as they were (server/starting.py start_game), so nothing of them is cleared before.
        self.writer = self.host.store_game(self, header)
        for seat in self.seats:
            seat.ready = False
            seat.entropy = None
        self.send_table()
        self.broadcast(self.game_message())
        for index, seat in enumerate(self.seats):
            if not self.connected(seat.token):
                self.stamp(HOST, {"type": "away", "seat": index})
        self.reschedule()

    def resume(
        self,
        header: Header,
        events: list[Event],
        writer: GameWriter,
        secret: GameSecret | None = None,
    ) -> None:
        """Take up a game from its log after a host restart: nobody is connected yet.
        A version-2 game needs its secret (from the table file) to go on drawing."""
        self.header, self.events = header, list(events)
        self.misses.clear()
        if secret is not None:
            self.secret = secret
        game = self.game = self._rebuild()
        self.last_t = self.events[-1]["t"] if self.events else header.get("t0", 0)
        self.writer = writer
        self.state = PLAYING
        self.throw_shown.begin()  # a throw still open is shown again to whoever connects
        for index in range(len(self.seats)):
            if not game.away[index]:
                self.stamp(HOST, {"type": "away", "seat": index})
        self.reschedule()

    def stamp(
        self, seat: int, action: AnyAction, sender: Link | None = None, re: int | None = None
    ) -> Event | None:
        """Apply, log and broadcast one action; IllegalAction leaves everything as it was.
        The event stamped, or None for a host stamp skipped while saving is paused."""
        if self.state != PLAYING:
            raise IllegalAction("No game is running at this table.")
        if self.saving.ending:  # the game is over; its end is on its way to the disk
            if seat == HOST:
                return None
            # Not a rules refusal (the sender has not seen the end yet, so its move was legal
            # where it stood): a code of its own, so neither a bot nor a test takes it for one.
            raise ProtocolError("game_ending", "This game is over: its end is being saved.")
        if self.saving.paused(seat):
            return None  # a host stamp is skipped: play resumed looks again at who is here
        if self.paused_at is not None and not (
            seat == HOST and action.get("type") in ("away", "back")
        ):
            if seat == HOST:
                return None  # (no timer runs while paused; a late one stamps nothing)
            raise ProtocolError("paused", "This game is paused until its player comes back.")
        t = max(self.host.now_ms(), self.last_t)
        game = self.running  # the state is PLAYING
        # The host's draws come from a stream (a SeededRNG), which can be marked, rewound
        # and asked what it drew; any other source is left alone.
        stream = game.rng if isinstance(game.rng, SeededRNG) else None
        mark = stream.mark() if stream is not None else None
        try:
            notes = game.apply(seat, action, t)
        except IllegalAction:
            if stream is not None and mark is not None:
                stream.rewind(mark)  # a refusal after a draw must not skip values of the stream
            raise
        except Exception:
            # An engine bug: its state may be half-changed, so rebuild it from the log.
            log.exception(
                "table %s: the engine failed on %r; rebuilding from the log", self.id, action
            )
            self.game = self._rebuild()
            raise IllegalAction("That move could not be handled. Nothing changed.") from None
        event: Event = {
            "seq": len(self.events) + 1,
            "t": t,
            "seat": seat,
            "action": cast(dict[str, Any], action),  # (a declared action is a plain map)
        }
        chance = stream.take_drawn() if stream is not None else []
        if chance:
            event["chance"] = chance
        self.last_t = t
        out = Outgoing(event, notes, sender, re, self.end_record() if game.finished else None)
        try:
            self.saving.put(out)  # on disk before anyone sees it; the end flushed, off the loop
        except StoreError as exc:
            # A player's move is refused for good, not played later in silence: undone (the
            # log, which nobody was shown beyond, rebuilds the game and its stream), so one
            # sent again once play goes on is its first, never a second throw.
            self.game = self._rebuild()
            raise self.saving.refuse(exc, sender) from None
        return event

    def flush_end(self, fd: int) -> Future[None]:
        """The open log `fd`, its end written, flushed to the disk on one of the store's sync
        threads, and the table file removed there after it (the game is finished on disk)."""
        return self.host.store.flush_soon(fd, drop_table=self.id)

    def end_record(self) -> EndRecord:
        """The fields of the log's end record (version 2: with the revealed server_seed); the
        digest lets a checker compare the whole end state, not only the scores."""
        record: EndRecord = {
            "kind": "end",
            "result": self.finished_result(),
            "digest": self.running.digest(),
        }
        if "commit" in self.running_header:
            record["server_seed"] = self.secret.server_seed
        return record

    def finished_result(self) -> Result:
        """The running game's result: asked only once it is finished."""
        result = self.running.result()
        if result is None:
            raise RuntimeError(f"table {self.id}: its game is not finished")
        return result

    def play_resumed(self, held: Outgoing | None) -> None:
        """The disk takes writes again (server/saving.py): the event that was held, if any,
        goes out, and each seat is marked away or back as its player is now (they dropped or
        came back while play was paused)."""
        if held is not None:
            self.publish(held)
        elif self.state == PLAYING:
            self.reschedule()  # (no event went out to start the clock again)
        for index, seat in enumerate(list(self.seats)):
            if self.state != PLAYING or self.saving.waiting:
                break
            here = self.connected(seat.token)
            if self.running.away[index] == here and not self.running.idle[index]:
                mark: AnyAction = (
                    {"type": "back", "seat": index} if here else {"type": "away", "seat": index}
                )
                self.stamp(HOST, mark)
        if self.state == PLAYING and not self.saving.waiting:
            self.send_table()

    def publish(self, out: Outgoing) -> None:
        """Send an event the disk has (server/saving.py) to every member, then look at what
        it did to the game."""
        event, notes, sender, re = out.event, out.notes, out.sender, out.re
        self.events.append(event)
        # {"type": "event", **event}, made of the event's fields as packed for the log.
        count, seed = len(event) + 1, b""
        game = self.running  # an event was just applied to it
        finished = game.finished  # (result() is not free: asked once per event)
        if finished and "commit" in self.running_header:
            seed = map_entries({"server_seed": self.secret.server_seed})  # the last reveals it
            count += 1
        frame = frame_of(count, _EVENT_TYPE, out.entries, seed)
        # (Only where an action answers a throw is the time each member was shown it read.)
        threw = self.ruleset in THROW_ANSWERED and shows_a_throw(notes)
        if threw:
            self.throw_shown.begin()
        for conn in self.connections():
            if conn is sender and re is not None:  # its answer: the same, with `re`
                conn.send_bytes(
                    frame_of(count + 1, _EVENT_TYPE, out.entries, seed, map_entries({"re": re}))
                )
            else:
                conn.send_bytes(frame)
            if threw:
                self.throw_shown.wrote_to(conn)
        # The checkpoint digest (a canonical dump and hash of the whole state, ~0.2 ms) is
        # taken after the event is on its way, not before: nothing has changed the game
        # since, and no client can ask for it before this handler returns.
        if is_checkpoint(event["seq"], notes, finished):
            self._remember_digest(event["seq"], game.digest())
        missed = self.misses.see(event["seat"], event["action"], notes, game.away)
        if finished:
            self.finish_game()
            return
        self.reschedule()
        for seat in missed:
            # (A bot is the host's own player, never idle: a slow one in a short race round
            # lets rounds run out and would then never grab again.)
            if (
                self.state == PLAYING
                and not self.seats[seat].bot
                and not self.running.away[seat]
                and self.someone_waits(seat)
            ):
                self.mark_idle(seat, self.idle_words(self.seats[seat].name))

    def idle_words(self, name: str) -> str:
        """What everybody is told when a seat is marked idle [D31]."""
        if self.ruleset == "race":  # (no turns: rounds that ran out)
            return (
                f"{name} let {MISSES_TO_IDLE} rounds run out: the host counts them as "
                "passing until they press a key."
            )
        return (
            f"{name} missed {MISSES_TO_IDLE} turns: the host plays for them until they press a key."
        )

    def evening_key(self, seat: Seat) -> str:
        """Who a seat's player is in tonight's standings (server/evening.py)."""
        if seat.bot:
            return f"bot {self.id} {seat.name}"
        found = self.host.records_id_of(seat)
        return f"player {found}" if found is not None else f"token {seat.token}"

    def someone_waits(self, seat: int) -> bool:
        """Whether another human is here, who would wait on `seat` (bots never mind: a player
        alone with bots is played for at each turn limit, never marked idle) [D31]."""
        return any(
            index != seat and not other.bot and self.connected(other.token)
            for index, other in enumerate(self.seats)
        )

    def mark_idle(self, seat: int, words: str) -> None:
        """Stamp a seat idle [D31] (the host plays its turns at once, until its player acts)
        and tell everybody at the table why."""
        if self.stamp(HOST, {"type": "away", "seat": seat, "idle": True}) is None:
            return  # (saving is paused: nothing was stamped)
        self.send_table()
        self.broadcast({"type": "notice", "code": "idle", "words": words})

    def finish_game(self) -> None:
        self.cancel_timer()
        self.state = FINISHED
        self.games_played += 1
        versioned = "commit" in self.running_header  # the game just finished
        tokens = [seat.token for seat in self.seats]  # the game's seats, before leavers go
        result = self.finished_result()
        keys = [self.evening_key(seat) for seat in self.seats]
        self.host.evening.game_ended(
            int(self.running_header.get("t0", self.host.now_ms())),
            self.host.now_ms(),
            len(keys),
            [keys[w] for w in result["winners"] if w < len(keys)],
        )
        if self.writer is not None:  # its end is on the disk, its table file gone (saving.py)
            self.writer.close()
            self.host.game_ended(self, self.writer.path, tokens)
            self.writer = None
        else:  # (no log was kept: nothing flushed, and nothing removed the table file yet)
            self.host.store.drop_table(self.id)
        if versioned:
            self.revealed = self.secret.server_seed
            self.secret = GameSecret()  # the next game's commit, shown from now on
        # Seats of players who left during the game are freed now that it is over.
        self.seats = [seat for seat in self.seats if self.connected(seat.token) or seat.bot]
        if self.owner is None or self.seat_of(self.owner) is None:
            self.pass_ownership()
        if self.owner is None:  # nobody but bots is left: the table closes
            self.host.close_table(self, f"Table {self.id} closed: its last player left.")
            return
        self.send_table()

    def pass_ownership(self) -> None:
        """The first human seated and here owns the table now (None: nobody)."""
        for seat in self.seats:
            if not seat.bot and self.connected(seat.token):
                self.owner = seat.token
                return
        self.owner = None

    def _rebuild(self) -> Game:
        """The game from its log, drawing from the secret stream (version 2) positioned after
        the last event, every revealed value checked against it; a version-1 log from its seed."""
        header = self.running_header  # set by start_game or resume before any rebuild
        if "commit" not in header:
            return replay(header, self.events)
        result = replay_with_stream(header, self.events, self.secret.server_seed)
        if not result.ok:
            raise IllegalAction(f"The saved game does not match its secret: {result.words}")
        # replay_with_stream gives the game with every successful Verification.
        assert result.game is not None
        return result.game

    def digest_ready(self, seq: int) -> bool:
        """Whether digest_at(seq) is cheap (no replay)."""
        return seq in self._digests or (seq == len(self.events) and not self._one_ahead())

    def digest_at(self, seq: int) -> str:
        """The engine's digest just after event `seq` (0: before the first event): from the
        checkpoints remembered while stamping, the current state, or a replay of the log."""
        if seq in self._digests:
            return self._digests[seq]
        if seq == len(self.events) and not self._one_ahead():
            digest = self.running.digest()
        else:
            digest = replay(self.running_header, self.events[:seq]).digest()
        self._remember_digest(seq, digest)
        return digest

    def _one_ahead(self) -> bool:
        """Whether the engine has an event nobody has been sent yet (held while the disk
        refuses writes, or the last one while the end is flushed)."""
        return self.saving.held is not None

    def _remember_digest(self, seq: int, digest: str) -> None:
        if len(self._digests) >= DIGEST_CACHE:
            del self._digests[next(iter(self._digests))]  # the oldest
        self._digests[seq] = digest

    # ---- deadlines -----------------------------------------------------------------------------
    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._timer_at = None

    def pause(self) -> None:
        """Stop the game's clock: no timeout, no move, until `go_on`."""
        if self.paused_at is None:
            self.paused_at = self.host.now_ms()
            self.cancel_timer()
            self.send_table()

    def go_on(self) -> None:
        """Play goes on after a pause: the deadline pending now is kept as far off as it was
        when the game paused (the next `reschedule` takes it; see `deadline`)."""
        if self.paused_at is None:
            return
        self._shift_pending = max(0, self.host.now_ms() - self.paused_at)
        self.paused_at = None

    def deadline(self) -> int | None:
        """When the host stamps the next timeout: the engine's deadline, or, for the deadline
        that was pending across a pause, that one moved on by the pause."""
        deadline = self.running.next_deadline()
        if deadline is None:
            return None
        if self._shift_pending is not None:
            self.grace = (deadline, deadline + self._shift_pending)
            self._shift_pending = None
        if self.grace is not None:
            if self.grace[0] == deadline:
                return self.grace[1]
            self.grace = None  # the game moved on: its new deadlines are after the pause
        return deadline

    def reschedule(self) -> None:
        if self.state != PLAYING or self.paused_at is not None:
            self.cancel_timer()
            return
        deadline = self.deadline()
        if deadline is not None and self._timer_at is not None and self._timer_at <= deadline:
            # Most events leave the deadline where it was or move it later (a new turn): the
            # timer set stands, and one that fires early only sets itself again.
            return
        self.cancel_timer()
        if deadline is None:
            return
        delay = max(0.0, (deadline - self.host.now_ms()) / 1000)
        self._timer = asyncio.get_running_loop().call_later(delay, self._deadline_passed)
        self._timer_at = deadline

    def _deadline_passed(self) -> None:
        self._timer = self._timer_at = None
        if self.state != PLAYING or self.paused_at is not None:
            return
        deadline = self.deadline()
        if deadline is None:
            return
        if self.host.now_ms() < deadline:
            self.reschedule()
            return
        try:
            self.stamp(HOST, {"type": "timeout"})
        except IllegalAction as exc:  # a bug in an engine: say so, do not spin
            log.error("table %s: the engine refused its own timeout: %s", self.id, exc.words)

    def abandon_start(
        self, state: str, ready: list[bool], words: str, told: Link | None = None
    ) -> None:
        """A start that failed: the table is back in the lobby as it was, everyone told."""
        self.cancel_timer()
        self.saving.cancel()
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        self.host.store.drop_table(self.id)
        self.header, self.game, self.events = None, None, []
        self.state = state
        for seat, was in zip(self.seats, ready):
            seat.ready = was
        self.send_table()
        frame = encode(error_message("cannot_start", words))
        for conn in self.connections():
            if conn is not told:
                conn.send_bytes(frame)

    def close(self, words: str | None = None) -> None:
        """The table closes: its members still here are told `words` first (if any), then
        shown it closed; every timer stops, a start asked for is refused, the log closed."""
        if words is not None:
            self.broadcast({"type": "notice", "code": "closed", "words": words})
        self.state = CLOSED
        self.broadcast({"type": "table", "table": self.describe()})
        self.cancel_timer()
        if self.abandoned is not None:
            self.abandoned.cancel()
            self.abandoned = None
        self.saving.cancel()
        if self.pending_start is not None:
            self.pending_start.cancel()
            self.pending_start = None
        if self.start_asked is not None:
            asker, re = self.start_asked
            self.start_asked = None
            asker.send(
                error_message("cannot_start", "The table closed before its game could start.", re)
            )
        if self.writer is not None:
            self.writer.close()
            self.writer = None
