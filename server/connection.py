"""The connection and its limits: one client's socket, from the door to its end.

Owns the `Connection` (an asyncio protocol), and what the host allows any connection before
it says anything: how many connections the host holds, how many one address may open
(loopback exempt unless capped), the send buffer a client must keep reading, the rate of
messages (a token bucket, each drop answered, a flood closed), and how long a connection may
wait before hello or stay silent (the sweep). Each whole frame goes to `host._handle`, to
completion, in the order it was read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from typing import TYPE_CHECKING

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
                 "last_heard", "opened", "closed", "peer", "last_replay", "counted", "door")

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

    def error(self, code: str, words: str | None = None, re: int | None = None) -> None:
        err = ProtocolError(code, words)
        message: dict[str, object] = {"type": "error", "code": code, "words": err.words}
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
    """Handle every whole frame that has arrived, in order, each to completion."""
    if conn not in host.connections:
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
            host._handle(conn, message)
    except Exception:
        log.exception("connection %s failed", conn.peer)
    # Closed while handling its own messages (a fatal error, a flood, a replacement):
    # the player leaves now, before anything else runs.
    ended(host, conn)


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
