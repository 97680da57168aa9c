"""The connection and its limits: one client's socket, from the door to its end.

Owns the `Connection` (an asyncio protocol), and what the host allows any connection before
it says anything: how many connections the host holds, how many one address may open
(loopback exempt unless capped), the send buffer a client must keep reading, the rate of
messages (a token bucket, each drop answered, a flood closed), and how long a connection may
wait before hello or stay silent (the sweep). Each whole frame goes to `host._handle`, to
completion, in the order it was read.

Connections are served fairly: one read handles at most MESSAGES_PER_TURN messages; if more
are waiting, the connection stops reading and waits its turn behind everyone else whose
bytes arrived (the rest is handled from the next turn of the event loop, and reading resumes
once its buffer is empty). So 200 connections that each send a burst at once delay an
honest player's ping by one round of a few messages each, not by every burst in full.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from typing import TYPE_CHECKING

from kismet_tui.rules.refusal import RefusalKind
from protocol import limits
from protocol.errors import ProtocolError
from protocol.framing import FROM_CLIENT, FrameReader, encode
from protocol.messages import request_id

from . import handshake

if TYPE_CHECKING:
    from .door_pass import DoorPass
    from .handshake import Player
    from .host import Host

log = logging.getLogger("kismet.host")

DEFAULT_MAX_PER_ADDRESS = 8
# Messages one connection has handled before the others get their turn. Small enough that a
# round of 200 flooders stays well under the 50 ms an honest ping may wait; large enough that
# a normal client's few messages (an act, a digest, a ping) go in one turn.
MESSAGES_PER_TURN = 4


def address_of(peer) -> str | None:
    """The IP address of a peer name as asyncio gives it, IPv4-mapped IPv6 unmapped."""
    if not isinstance(peer, tuple) or not peer:
        return None
    address = str(peer[0])
    return address[7:] if address.startswith("::ffff:") else address


def is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class Connection(asyncio.Protocol):
    """One client's connection: frames are handled as they arrive (`received`)."""

    __slots__ = ("host", "transport", "frames", "player", "tokens", "refilled", "strikes",
                 "last_heard", "opened", "closed", "peer", "last_replay", "counted", "door",
                 "waiting_turn", "last_desync_log", "corked")

    def __init__(self, host: Host) -> None:
        self.host = host
        # Declared, not set: asyncio calls connection_made, which sets it, before anything
        # else can reach this connection.
        self.transport: asyncio.Transport
        self.frames = FrameReader(FROM_CLIENT)
        self.player: Player | None = None
        self.tokens = float(limits.RATE_BURST)
        self.refilled = time.monotonic()
        self.strikes = 0
        self.last_heard = self.opened = time.monotonic()
        self.closed = False
        self.peer = None
        self.last_replay = 0.0
        self.waiting_turn = False   # reading paused until the loop comes back to it (fairness)
        self.last_desync_log = 0.0  # server/relay.py logs a flood of desyncs once a second
        # While its own messages are handled, what it is sent is gathered here and written
        # in one piece at the end of its turn (a system call per turn, not per answer).
        self.corked: list[bytes] | None = None
        self.counted: str | None = None  # the address this connection counts against
        # Set at hello when the client offers a pass its door issued (server/door_pass.py):
        # the ssh or web player's real address and proof. None for a direct connection.
        self.door: DoorPass | None = None

    @property
    def known_player(self) -> Player:
        """The player who said hello on this connection. Host._handle lets nothing but hello
        and ping through before that, so the lobby's and the relay's handlers always have one;
        without one the answer is the same hello_first."""
        if self.player is None:
            raise ProtocolError("hello_first")
        return self.player

    # ---- asyncio.Protocol ----------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.peer = transport.get_extra_info("peername")
        opened(self.host, self)

    def data_received(self, data: bytes) -> None:
        received(self.host, self, data)

    def connection_lost(self, exc) -> None:
        self.closed = True
        ended(self.host, self)

    def send(self, message: dict) -> None:
        self.send_bytes(encode(message))

    def send_bytes(self, frame: bytes) -> None:
        if self.closed:
            return
        if self.corked is not None:
            self.corked.append(frame)
            return
        transport = self.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > limits.MAX_SEND_BUFFER:
            log.warning("dropping %s: it does not read what it is sent", self.peer)
            self.close()
            return
        transport.write(frame)

    def ok(self, re: int | None) -> None:
        """The plain answer to a request that asked for one (it carried an id)."""
        if re is not None:
            self.send({"type": "ok", "re": re})

    def error(self, code: str, words: str | None = None, re: int | None = None,
              kind: RefusalKind | None = None) -> None:
        """Send an `error`: the code, its kind (the code's own unless given: the engine's
        refusals say theirs) and words (docs/protocol.md, "Error codes")."""
        err = ProtocolError(code, words, kind=kind)
        message: dict[str, object] = {"type": "error", "code": code, "kind": err.kind,
                                      "words": err.words}
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


def opened(host, conn: Connection) -> None:
    """At the door: refused in words if the host is stopping or full, or the address has
    its share; otherwise counted."""
    if host._stopping:
        conn.error("shutdown")
        conn.close()
        return
    if len(host.connections) >= host.max_connections:
        conn.error("full", f"The host is full right now: it holds {host.max_connections} "
                   f"connections, its most. Please try again later.")
        conn.close()
        return
    if not take_share(host, conn, address_of(conn.peer)):
        refuse_address(host, conn)
        return
    host.connections.add(conn)


def take_share(host, conn: Connection, address: str | None) -> bool:
    """Count `conn` against `address`'s share (loopback's only with cap_loopback), or say
    False when that address holds its share already (and count nothing)."""
    capped = host.max_per_address is not None and address is not None \
        and (host.cap_loopback or not is_loopback(address))
    if not capped:
        return True
    assert address is not None  # (capped says so)
    if host.per_address.get(address, 0) >= host.max_per_address:
        return False
    host.per_address[address] = host.per_address.get(address, 0) + 1
    conn.counted = address
    return True


def give_back_share(host, conn: Connection) -> None:
    if conn.counted is not None:
        left = host.per_address.get(conn.counted, 1) - 1
        if left > 0:
            host.per_address[conn.counted] = left
        else:
            host.per_address.pop(conn.counted, None)
        conn.counted = None


def refuse_address(host, conn: Connection) -> None:
    conn.error("full", f"Too many connections from your address: the host takes "
               f"{host.max_per_address} from one address. Close one and try again.")
    conn.close()


def came_through(host, conn: Connection, door: DoorPass) -> bool:
    """A door's client said hello with its pass: the connection now counts against the
    player's real address, not loopback's; False (counted nowhere) when that address holds
    its share already."""
    give_back_share(host, conn)
    conn.door = door
    return take_share(host, conn, door.address)


def received(host, conn: Connection, data: bytes) -> None:
    """Take in arrived bytes and handle the whole frames among them (a turn's worth)."""
    if conn not in host.connections:
        return  # refused at the door, or already ended
    conn.frames.feed(data)
    if not conn.waiting_turn:
        serve(host, conn)


def _next_turn(host, conn: Connection) -> None:
    conn.waiting_turn = False
    if conn.closed or conn not in host.connections:
        return
    serve(host, conn)


def serve(host, conn: Connection) -> None:
    """One turn of the connection: its messages handled, what they answered written at once."""
    conn.corked = []
    try:
        over = _handle_turn(host, conn)
    finally:
        conn.flush()
    if over:
        # Closed while handling its own messages (a fatal error, a flood, a replacement):
        # the player leaves now, before anything else runs.
        ended(host, conn)


def _handle_turn(host, conn: Connection) -> bool:
    """Handle up to MESSAGES_PER_TURN whole frames, in order, each to completion; with more
    waiting, pause reading and come back on the loop's next turn (after the others).
    True when the connection is over."""
    handled = 0
    try:
        while not conn.closed:
            if handled == MESSAGES_PER_TURN and conn.frames.buffered():
                conn.waiting_turn = True
                conn.transport.pause_reading()
                asyncio.get_running_loop().call_soon(_next_turn, host, conn)
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
            conn.last_heard = time.monotonic()
            if not conn.within_rate():
                # Each dropped message is answered, so a client never waits in vain.
                conn.error("slow_down", re=request_id(message))
                if conn.strikes >= limits.FLOOD_STRIKES:  # the 40th drop is the last
                    conn.error("slow_down", "Too many messages: closing this connection.")
                    break
                continue
            host._handle(conn, message)
    except Exception:
        log.exception("connection %s failed", conn.peer)
    return True


def ended(host, conn: Connection) -> None:
    """A connection is over: once, whichever of the host or the peer ended it."""
    conn.close()
    if conn in host.connections:
        host.connections.discard(conn)
        give_back_share(host, conn)
        handshake.dropped(host, conn)


async def sweep(host) -> None:
    """Close connections that never said hello, or went silent."""
    while True:
        await asyncio.sleep(1.0)
        now = time.monotonic()
        for conn in list(host.connections):
            if conn.player is None and now - conn.opened > limits.HELLO_TIMEOUT_S:
                conn.error("hello_first")
                conn.close()
            elif now - conn.last_heard > limits.IDLE_TIMEOUT_S:
                conn.error("idle")
                conn.close()
