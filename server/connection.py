"""The connection and its limits: one client's socket, from the door to its end.

Owns the `Connection` (an asyncio protocol), and what the host allows any connection before
it says anything: how many connections the host holds, how many one address may open
(server/peer_cap.py, the doors' rule too), the send buffer a client must keep reading, the rate of
messages (a token bucket, each drop answered, a flood closed), and how long a connection may
wait before hello or stay silent (the sweep): the `Gate` holds that state, and is given
what to call with each message and at each connection's end. Each whole frame goes to
`gate.handle`, to completion, in the order it was read. The host's own bots connect through
`own_connection`, whose local address the gate knows before it connects: they count against
no address's share (they are the host's, not any peer's).

Connections are served fairly: one read handles at most MESSAGES_PER_TURN messages; if more
are waiting, the connection stops reading and waits its turn behind everyone else whose
bytes arrived (the rest is handled from the next turn of the event loop, and reading resumes
once its buffer is empty). So 200 connections that each send a burst at once delay an
honest player's ping by one round of a few messages each, not by every burst in full.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from typing import cast

from kismet_tui.rules.refusal import RefusalKind
from protocol import limits
from protocol.errors import ProtocolError, error_message
from protocol.framing import FROM_CLIENT, FrameReader, encode
from protocol.host_messages import ToClient
from protocol.requests import request_id

from .doors.door_pass import DoorPass
from .peer_cap import PeerCap, address_of
from .player import Player
from .token_bucket import TokenBucket

log = logging.getLogger("kismet.host")

# Messages one connection has handled before the others get their turn. Small enough that a
# round of 200 flooders stays well under the 50 ms an honest ping may wait; large enough that
# a normal client's few messages (an act, a digest, a ping) go in one turn.
MESSAGES_PER_TURN = 4


class Gate:
    """What the host allows connections, and what it holds of them: the connections open
    now and how many each address has; told what to do with each message (`handle`) and
    with each connection that ended (`ended`)."""

    __slots__ = (
        "connections",
        "per_address",
        "max_connections",
        "stopping",
        "handle",
        "ended",
        "own_peers",
    )

    def __init__(
        self,
        max_connections: int,
        max_per_address: int | None,
        cap_loopback: bool,
        handle: Callable[[Connection, dict], None],
        ended: Callable[[Connection], None],
    ) -> None:
        self.connections: set[Connection] = set()
        self.max_connections = max_connections
        # At most max_per_address from one address (None: no cap), loopback's only with
        # cap_loopback (server/peer_cap.py: the doors' cap is the same rule).
        self.per_address = PeerCap(max_per_address, cap_loopback)
        self.stopping = False  # new connections are refused: the host is stopping
        self.handle = handle
        self.ended = ended
        # The local (address, port) of each of the host's own connections on its way in
        # (own_connection): a socket this process holds, so no peer can come from it.
        self.own_peers: set[tuple[str | None, int]] = set()


class Connection(asyncio.Protocol):
    """One client's connection: frames are handled as they arrive (`received`)."""

    __slots__ = (
        "gate",
        "transport",
        "frames",
        "player",
        "rate",
        "strikes",
        "last_heard",
        "opened",
        "closed",
        "peer",
        "last_replay",
        "counted",
        "door",
        "waiting_turn",
        "last_desync_log",
        "corked",
        "behind",
        "chat_skipped",
    )

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        # Declared, not set: asyncio calls connection_made, which sets it, before anything
        # else can reach this connection.
        self.transport: asyncio.Transport
        self.frames = FrameReader(FROM_CLIENT)
        self.player: Player | None = None
        self.last_heard = self.opened = time.monotonic()
        # Messages it may send now: RATE_BURST at once, then RATE_PER_SECOND.
        self.rate = TokenBucket(limits.RATE_BURST, limits.RATE_PER_SECOND, self.opened)
        self.strikes = 0
        self.closed = False
        self.peer: object = None
        self.last_replay = 0.0
        self.waiting_turn = False  # reading paused until the loop comes back to it (fairness)
        self.last_desync_log = 0.0  # server/relay.py logs a flood of desyncs once a second
        # While its own messages are handled, what it is sent is gathered here and written
        # in one piece at the end of its turn (a system call per turn, not per answer).
        self.corked: list[bytes] | None = None
        self.counted: str | None = None  # the address this connection counts against
        # Set at hello when the client offers a pass its door issued (server/doors/door_pass.py):
        # the ssh or web player's real address and proof. None for a direct connection.
        self.door: DoorPass | None = None
        # More than CHAT_BACKLOG bytes wait to be sent to it (asyncio said pause_writing, not
        # yet resume_writing): chat lines for it are skipped and counted meanwhile (send_chat).
        self.behind = False
        self.chat_skipped = 0

    @property
    def known_player(self) -> Player:
        """The player who said hello on this connection. The host lets nothing but hello
        and ping through before that, so the lobby's and the relay's handlers always have one;
        without one the answer is the same hello_first."""
        if self.player is None:
            raise ProtocolError("hello_first")
        return self.player

    # ---- asyncio.Protocol ----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream server's transport (uvloop's or asyncio's): it reads, writes and pauses.
        self.transport = cast(asyncio.Transport, transport)
        self.peer = transport.get_extra_info("peername")
        # Past this much waiting to be written, asyncio calls pause_writing (send_chat).
        self.transport.set_write_buffer_limits(high=limits.CHAT_BACKLOG)
        opened(self.gate, self)

    def data_received(self, data: bytes) -> None:
        received(self.gate, self, data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        ended(self.gate, self)

    def pause_writing(self) -> None:
        self.behind = True

    def resume_writing(self) -> None:
        self.behind = False
        self.tell_skipped()  # (asyncio lets a protocol write from here)

    def send(self, message: ToClient) -> None:
        self.send_bytes(encode(message))

    def send_chat(self, frame: bytes) -> None:
        """A chat line, unless this connection has fallen behind: then it is skipped and
        counted, and told as one line once it has caught up. Chat is the one thing the host
        sends that a player can miss; a client that cannot take it all must not make the
        host hold it without end, nor keep the game's events from it."""
        if self.closed:
            return
        if self.behind:
            self.chat_skipped += 1
            return
        self.tell_skipped()
        self.send_bytes(frame)

    def tell_skipped(self) -> None:
        skipped, self.chat_skipped = self.chat_skipped, 0
        if skipped and not self.closed:
            lines = "1 line of chat was" if skipped == 1 else f"{skipped} lines of chat were"
            self.send(
                {
                    "type": "chat_skipped",
                    "count": skipped,
                    "words": f"{lines} skipped: your connection fell behind.",
                }
            )

    def send_bytes(self, frame: bytes) -> None:
        if self.closed:
            return
        if self.corked is not None:
            self.corked.append(frame)
            return
        transport = self.transport
        if transport.is_closing():
            return
        # Only a connection that is behind (past CHAT_BACKLOG, the transport's high-water
        # mark: asyncio calls pause_writing the moment a write crosses it) can hold more than
        # MAX_SEND_BUFFER, so the others are not asked their buffer's size at every frame.
        if self.behind and transport.get_write_buffer_size() > limits.MAX_SEND_BUFFER:
            log.warning("dropping %s: it does not read what it is sent", self.peer)
            # Aborted, not closed: a close waits to send what is buffered, which a peer that
            # reads nothing never takes, and the connection (its buffer, its share of its
            # address's connections) would be held until it read or the sweep came.
            self.closed = True
            transport.abort()
            return
        transport.write(frame)

    def ok(self, re: int | None) -> None:
        """The plain answer to a request that asked for one (it carried an id)."""
        if re is not None:
            self.send({"type": "ok", "re": re})

    def error(
        self,
        code: str,
        words: str | None = None,
        re: int | None = None,
        kind: RefusalKind | None = None,
    ) -> None:
        """Send an `error`: the code, its kind (the code's own unless given: the engine's
        refusals say theirs) and words (docs/protocol.md, "Error codes")."""
        self.send(error_message(code, words, re, kind))

    def within_rate(self, now: float | None = None) -> bool:
        """Token bucket: True if this message may be handled now (`now`: the monotonic clock
        as the caller read it for this message)."""
        if now is None:
            now = time.monotonic()
        if self.rate.take(1, now):
            if self.rate.tokens >= limits.RATE_BURST - 1:
                self.strikes = 0
            return True
        self.strikes += 1
        return False

    def flush(self) -> None:
        """Write what was gathered during this connection's turn."""
        frames, self.corked = self.corked, None
        if frames:
            self.send_bytes(b"".join(frames))

    def close(self) -> None:
        if not self.closed:
            self.flush()  # the last words (an error saying why) go out before it closes
            self.closed = True
            self.transport.close()


def opened(gate: Gate, conn: Connection) -> None:
    """At the door: refused in words if the host is stopping or full, or the address has
    its share; otherwise counted."""
    if gate.stopping:
        conn.error("shutdown")
        conn.close()
        return
    own = _peer_key(conn.peer) in gate.own_peers
    gate.own_peers.discard(_peer_key(conn.peer))
    if len(gate.connections) >= gate.max_connections:
        conn.error(
            "full",
            f"The host is full right now: it holds {gate.max_connections} "
            f"connections, its most. Please try again later.",
        )
        conn.close()
        return
    if not own and not take_share(gate, conn, address_of(conn.peer)):
        refuse_address(gate, conn)
        return
    gate.connections.add(conn)


def _peer_key(name: object) -> tuple[str | None, int]:
    port = name[1] if isinstance(name, tuple) and len(name) > 1 and isinstance(name[1], int) else -1
    return address_of(name), port


async def own_connection(
    gate: Gate, address: str, port: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to this host (`address`, `port`) for one of its own bots, which the
    gate counts against no address: its socket is bound first, and its local address noted
    before it connects (in the same process, so no peer can share it)."""
    sock = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM)
    local: tuple[str | None, int] | None = None
    try:
        sock.setblocking(False)
        sock.bind((address, 0))
        local = _peer_key(sock.getsockname())
        gate.own_peers.add(local)
        await asyncio.get_running_loop().sock_connect(sock, (address, port))
        return await asyncio.open_connection(sock=sock)
    except BaseException:
        if local is not None:
            gate.own_peers.discard(local)
        sock.close()
        raise


def take_share(gate: Gate, conn: Connection, address: str | None) -> bool:
    """Count `conn` against `address`'s share (loopback's only with cap_loopback), or say
    False when that address holds its share already (and count nothing)."""
    if not gate.per_address.admit(address):
        return False
    conn.counted = address
    return True


def give_back_share(gate: Gate, conn: Connection) -> None:
    if conn.counted is not None:
        gate.per_address.release(conn.counted)
        conn.counted = None


def refuse_address(gate: Gate, conn: Connection) -> None:
    conn.error(
        "full",
        f"Too many connections from your address: the host takes "
        f"{gate.per_address.limit} from one address. Close one and try again.",
    )
    conn.close()


def came_through(gate: Gate, conn: Connection, door: DoorPass) -> bool:
    """A door's client said hello with its pass: the connection now counts against the
    player's real address, not loopback's; False (counted nowhere) when that address holds
    its share already."""
    give_back_share(gate, conn)
    conn.door = door
    return take_share(gate, conn, door.address)


def received(gate: Gate, conn: Connection, data: bytes) -> None:
    """Take in arrived bytes and handle the whole frames among them (a turn's worth)."""
    if conn not in gate.connections:
        return  # refused at the door, or already ended
    conn.frames.feed(data)
    if not conn.waiting_turn:
        serve(gate, conn)


def _next_turn(gate: Gate, conn: Connection) -> None:
    conn.waiting_turn = False
    if conn.closed or conn not in gate.connections:
        return
    serve(gate, conn)


def serve(gate: Gate, conn: Connection) -> None:
    """One turn of the connection: its messages handled, what they answered written at once."""
    conn.corked = []
    try:
        over = _handle_turn(gate, conn)
    finally:
        conn.flush()
    if over:
        # Closed while handling its own messages (a fatal error, a flood, a replacement):
        # the player leaves now, before anything else runs.
        ended(gate, conn)


def _handle_turn(gate: Gate, conn: Connection) -> bool:
    """Handle up to MESSAGES_PER_TURN whole frames, in order, each to completion; with more
    waiting, pause reading and come back on the loop's next turn (after the others).
    True when the connection is over."""
    handled = 0
    try:
        while not conn.closed:
            if handled == MESSAGES_PER_TURN and conn.frames.buffered():
                conn.waiting_turn = True
                conn.transport.pause_reading()
                asyncio.get_running_loop().call_soon(_next_turn, gate, conn)
                return False
            handled += 1
            try:
                message = conn.frames.next_message()
            except ProtocolError as exc:
                conn.error(exc.code, exc.words, exc.re)
                if exc.fatal:
                    break
                continue
            if message is None:
                if not conn.transport.is_reading():
                    conn.transport.resume_reading()  # its turns are over: read again
                return False  # the rest has not arrived yet
            conn.last_heard = heard = time.monotonic()  # (one clock read per message)
            if not conn.within_rate(heard):
                # Each dropped message is answered, so a client never waits in vain.
                conn.error("slow_down", re=request_id(message))
                if conn.strikes >= limits.FLOOD_STRIKES:  # the 40th drop is the last
                    conn.error("slow_down", "Too many messages: closing this connection.")
                    break
                continue
            gate.handle(conn, message)
    except Exception:
        log.exception("connection %s failed", conn.peer)
    return True


def ended(gate: Gate, conn: Connection) -> None:
    """A connection is over: once, whichever of the host or the peer ended it."""
    conn.close()
    if conn in gate.connections:
        gate.connections.discard(conn)
        give_back_share(gate, conn)
        gate.ended(conn)


async def sweep(gate: Gate) -> None:
    """Close connections that never said hello, or went silent."""
    while True:
        await asyncio.sleep(1.0)
        now = time.monotonic()
        for conn in list(gate.connections):
            if conn.player is None and now - conn.opened > limits.HELLO_TIMEOUT_S:
                conn.error("hello_first")
                conn.close()
            elif now - conn.last_heard > limits.IDLE_TIMEOUT_S:
                conn.error("idle")
                conn.close()
