"""`kismet-host --web`: the Kismet app in a browser, each visitor a member of this host.

textual-serve serves a page holding a terminal; for each visitor's websocket the door runs
`kismet-join` to this host with the name asked for on screen (server/doors/web_session.py runs and
bounds that process). This module is the door: it fits textual-serve into the host's own
event loop, points the page at the address the visitor used (not the one bound, which may
be 0.0.0.0), serves the page's own files and nothing else (no folder listings, nothing from
the internet), lets a socket in only when it was asked for by one of the names this door
serves and from that page (the Host and Origin checks), caps visitors per address and in
all, and gives a returning browser its seat back.

Host and Origin: a browser sends the page's own address as both, so comparing the two alone
lets in DNS rebinding (a page at a name the attacker controls, pointed at this machine
after it loaded, names itself in both). The Host must therefore be one of the addresses the
door serves (the address the connection arrived at, the one it is bound to, this machine's
own addresses, `localhost` on loopback) or a name given with `--web-origin`; the Origin
must then be that page (`scheme://Host`), or with `--web-origin` one of the pages named.

Seats: the page keeps a random secret in the browser's own storage and opens its socket at
/ws/SECRET. The door keeps that browser's rejoin tokens in a folder named by a hash of the
secret (server/doors/seat_files.py: removed once the host holds none of its tokens), and tells the host, by a door pass, that the player is "web <sha256 of the secret>":
the same browser typing the same name gets its seat back; any other browser does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server

from ..addresses import local_addresses
from ..peer_cap import DEFAULT_MAX_PER_ADDRESS, PeerCap, is_loopback, unmapped
from .door_limits import SESSION_ADDRESS_SPACE, SessionSlots, clamp_size
from .door_pass import ENVIRONMENT_NAME
from .seat_files import SeatFolders
from .session_sandbox import SessionSandbox, own_environment, session_rules
from .warm_doors import DoorForker
from .web_session import VisitorLeft, VisitorSession, peer_hung_up, tell_and_close

if TYPE_CHECKING:
    from ..host import Host

log = logging.getLogger("kismet.web")

DEFAULT_WEB_PORT = 8080
PAGE_FOLDER = Path(__file__).resolve().parent / "web_page"
VISITOR_SECRET = re.compile(r"[0-9a-f]{64}")  # what the page makes: 32 random bytes in hex
# The page sends keys, sizes and pings: small messages. A bigger one closes the socket.
MAX_MESSAGE = 64 * 1024


class KismetServe(Server):
    """textual-serve's server, quiet at start, answering at the visitor's own address."""

    def __init__(self, door: WebServer, *, host: str, port: int, title: str) -> None:
        super().__init__(
            "kismet-join", templates_path=PAGE_FOLDER, host=host, port=port, title=title
        )
        self.door = door

    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/ws/{visitor}", self.handle_websocket),
                # (the page's own files, named like this for the page's template)
                web.get("/static/{filename:.*}", self.handle_static, name="static"),
            ]
        )
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        # The page's websocket address is built from public_url, with no await in between.
        self.public_url = f"{request.scheme}://{request.host}"
        return await super().handle_index(request)

    async def handle_static(self, request: web.Request) -> web.StreamResponse:
        """A file of the page (its script, styles, font, background); folders are not listed."""
        root = self.statics_path.resolve()
        try:
            target = (root / request.match_info["filename"]).resolve(strict=True)
        except (OSError, RuntimeError):
            raise web.HTTPNotFound(text="No such file here.") from None
        if root not in target.parents or not target.is_file():
            raise web.HTTPNotFound(text="No such file here.")
        return web.FileResponse(target)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One visitor: let in from the page only, under the caps, their app started at the
        page's size and always ended (its process group killed and reaped) when they go."""
        page = f"{request.scheme}://{request.host}/"
        socket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        if not socket.can_prepare(request).ok:
            # (a browser opened the address itself, or a scanner: not worth a log line)
            raise web.HTTPBadRequest(
                text=(
                    f"This address is the game's websocket, which the page opens. To play, open "
                    f"{page} in a browser.\n"
                )
            )
        if not self.door.serves(request):
            log.info("a websocket for another host name refused (Host %r)", request.host[:100])
            raise web.HTTPForbidden(
                text=(
                    "This game's websocket answers only at this host's own addresses (or the names "
                    "it was started with, --web-origin): open the page at one of those to play.\n"
                )
            )
        allowed = self.door.allowed_origins(request)
        if request.headers.get("Origin", "").rstrip("/").lower() not in allowed:
            log.info(
                "a websocket from another page refused (Origin %r)", request.headers.get("Origin")
            )
            raise web.HTTPForbidden(
                text=(
                    f"This game's websocket opens only from its own page, {allowed[0]}/: open that "
                    f"page to play.\n"
                )
            )
        visitor = request.match_info.get("visitor")
        if visitor is not None and not VISITOR_SECRET.fullmatch(visitor):
            raise web.HTTPBadRequest(text="That is not a key this page makes: reload the page.\n")
        address = unmapped(request.remote or "?")
        await socket.prepare(request)
        async with contextlib.AsyncExitStack() as holding:
            if not self.door.cap.admit(address):
                await tell_and_close(socket, self.door.cap.refusal())
                return socket
            holding.callback(self.door.cap.release, address)
            if self.door.slots is not None:
                if not self.door.slots.take():
                    await tell_and_close(socket, self.door.slots.refusal())
                    return socket
                holding.callback(self.door.slots.give_back)
            await self.play(request, socket, address, visitor)
        return socket

    async def play(
        self, request: web.Request, socket: web.WebSocketResponse, address: str, visitor: str | None
    ) -> None:
        digest = hashlib.sha256(visitor.encode()).hexdigest() if visitor else None
        # A storm of visitors starts a few at a time (server/doors/door_starts.py): wait for a turn.
        turn = self.door.slots.starts.turn() if self.door.slots is not None else None
        if turn is not None:
            await turn.wait()
            if peer_hung_up(request):  # (gone while waiting: the turn passes on at once)
                turn.end()
                return
        passes = self.door.host.door_passes
        door_pass = passes.issue(
            "web",
            address,
            f"web {digest}" if digest else "",
            listed=turn.listed if turn is not None else None,
        )
        seat = digest[:32] if digest else self.door.seats.once()
        self.door.seats.using(seat)
        folder = self.door.seats.folder(seat)
        session = VisitorSession(
            self.door.visitor_args(seat, fresh=digest is None),
            {ENVIRONMENT_NAME: door_pass, **own_environment(folder)},
            request,
            socket,
            download_manager=self.download_manager,
            address_space=self.door.session_address_space,
            forker=self.door.forker,
            confinement=session_rules(self.door.sandbox, folder),
            turn=turn,
        )
        self.door.sessions.add(session)
        try:
            await session.start(
                *clamp_size(request.query.get("width"), request.query.get("height"))
            )
            log.info("a visitor from %s (pid %s)", address, session.pid)
            await session.play(socket)
        except (VisitorLeft, ConnectionResetError):
            pass  # they went: end() below ends their app
        except Exception:
            log.exception("a web visitor's session failed")
        finally:
            if turn is not None:
                turn.end()
            passes.revoke(door_pass)
            await session.end()
            await socket.close()
            self.door.sessions.discard(session)
            self.door.seats.done(seat)


class WebServer:
    """The web front door of `host` (a server.Host in this process)."""

    def __init__(
        self,
        host: Host,
        state_dir: str | Path,
        *,
        max_per_address: int | None = DEFAULT_MAX_PER_ADDRESS,
        cap_loopback: bool = False,
        slots: SessionSlots | None = None,
        origins: Iterable[str] = (),
        session_address_space: int = SESSION_ADDRESS_SPACE,
        forker: DoorForker | None = None,
        sandbox: SessionSandbox | None = None,
    ) -> None:
        self.host = host
        self.forker = forker  # the warm parent of sessions (None: a new process each)
        self.state_dir = Path(state_dir)
        # The per-address cap, the host's own rule (server/peer_cap.py) for this door's peers.
        self.cap = PeerCap(max_per_address, cap_loopback)
        self.slots = slots  # shared with the ssh door: door sessions in all
        # --web-origin's pages (scheme://host[:port], lower case): none, the page's own.
        self.origins = [origin.rstrip("/").lower() for origin in origins]
        self.bind = "0.0.0.0"
        self._own_addresses: frozenset[str] | None = None  # this machine's, looked up once
        self.session_address_space = session_address_space
        self.sessions: set[VisitorSession] = set()  # the visitors playing now
        self.seats = SeatFolders(host, self.state_dir, "web-seats")
        # What each session may open: its seat folder, never the rest of the state folder.
        self.sandbox = sandbox if sandbox is not None else SessionSandbox(self.state_dir)
        self.port: int | None = None
        self.serve: KismetServe | None = None
        self._runner: web.AppRunner | None = None

    def serves(self, request: web.Request) -> bool:
        """The request names this door by one of its own addresses or --web-origin's names
        (its Host header), not a name somebody else pointed at this machine."""
        name = host_name(request.host)
        if name in {host_name(origin.split("://", 1)[-1]) for origin in self.origins}:
            return True
        arrived = request.transport.get_extra_info("sockname") if request.transport else None
        arrived_at = str(arrived[0]) if arrived else ""
        if name == "localhost":
            return is_loopback(arrived_at)
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False  # a name this door was not given
        if self._own_addresses is None:
            self._own_addresses = frozenset(local_addresses() + ["127.0.0.1", "::1"])
        ours = self._own_addresses | {arrived_at, self.bind}
        return any(address == ipaddress.ip_address(own) for own in ours if is_address(own))

    def allowed_origins(self, request: web.Request) -> list[str]:
        """The pages that may open the socket: --web-origin's, or the page the Host names."""
        return self.origins or [f"{request.scheme}://{request.host}".lower()]

    def visitor_args(self, seat: str, *, fresh: bool) -> list[str]:
        """The visitor's `kismet-join` arguments: the tokens file of the seat folder `seat`
        (the browser's own when the page sent its secret; else one for this visit, and
        always a new member: --fresh), apart from any ssh or local player's."""
        address = f"{self.host.connect_address()}:{self.host.port}"
        seats = ["--seats-file", str(self.seats.tokens_file(seat))]
        return [address, "--ask-name", *(["--fresh"] if fresh else []), *seats]

    async def start(self, bind: str = "0.0.0.0", port: int = DEFAULT_WEB_PORT) -> None:
        self.bind = bind
        self.serve = KismetServe(self, host=bind, port=port, title="Kismet")
        self._runner = web.AppRunner(await self.serve._make_app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, bind, port)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            raise
        self.port = self._runner.addresses[0][1]  # (host, port, ...) of the one site
        self.seats.start()
        log.info("web on %s:%s", bind, self.port)

    async def stop(self) -> None:
        """End every visitor's game, close their sockets, then stop serving (aiohttp alone
        would wait for each open socket's handler)."""
        sessions = list(self.sessions)
        await asyncio.gather(*(session.end() for session in sessions), return_exceptions=True)
        await asyncio.gather(
            *(session.socket.close() for session in sessions), return_exceptions=True
        )
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await self.seats.stop()


def host_name(host: str) -> str:
    """The name or address in a Host header (or an origin's host[:port]), lower case, without
    its port or an IPv6 address's brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
