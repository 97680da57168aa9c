"""`kismet-host --web`: the Kismet app in a browser, each visitor a member of this host.

textual-serve does the work: it serves a page holding a terminal, and for each visitor's
websocket runs a command, here `kismet-join` to this host with the name asked for on
screen. This module fits it into the host's own event loop, points the page at the address
the visitor used (not the one bound, which may be 0.0.0.0), and caps visitors per address.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import sys
from pathlib import Path

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from .peer_cap import DEFAULT_MAX_PER_ADDRESS, PeerCap

log = logging.getLogger("kismet.web")

DEFAULT_WEB_PORT = 8080
JOIN_CODE = "import sys; from kismet_tui.cli import join_main; sys.exit(join_main(sys.argv[1:]))"


class KismetServe(Server):
    """textual-serve's server, quiet at start, answering at the visitor's own address."""

    def __init__(self, command: str, cap: PeerCap, **kwargs):
        super().__init__(command, **kwargs)
        self.cap = cap

    async def on_startup(self, app) -> None:
        pass  # (textual-serve would print its logo on stdout, among the host's lines)

    async def handle_index(self, request: web.Request):
        # The page's websocket address is built from public_url, with no await in between.
        self.public_url = f"{request.scheme}://{request.host}"
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request):
        """One visitor: under the cap, their app started at the page's size, and ended (its
        process waited for) when they go, so no visitor outlives the server."""
        address = request.remote or "?"
        if not self.cap.admit(address):
            return web.Response(status=429, text=self.cap.refusal())
        log.info("a visitor from %s", address)
        socket = web.WebSocketResponse(heartbeat=15)
        service = None
        try:
            await socket.prepare(request)
            async def close() -> None:  # (aiohttp's close answers a bool nobody reads)
                await socket.close()

            service = AppService(self.command, write_bytes=socket.send_bytes,
                                 write_str=socket.send_str, close=close,
                                 download_manager=self.download_manager, debug=False)
            await service.start(size(request, "width", 80), size(request, "height", 24))
            await self._process_messages(socket, service)
        except asyncio.CancelledError:
            await socket.close()
        except Exception:
            log.exception("a web visitor's session failed")
        finally:
            self.cap.release(address)
            if service is not None:
                await end_visitor(service)
        return socket


def size(request: web.Request, key: str, default: int) -> int:
    value = request.query.get(key, "")
    return min(int(value), 1000) if value.isdigit() and int(value) > 0 else default


async def end_visitor(service: AppService) -> None:
    """Ask the app to quit, then make sure its process has gone (and close its pipes)."""
    process = service._process
    try:
        await asyncio.wait_for(service.stop(), 5)
    except (asyncio.TimeoutError, Exception):
        pass
    if process is None:
        return
    if process.returncode is None:
        process.kill()
    await process.wait()
    if process.stdin is not None:
        process.stdin.close()


class WebServer:
    """The web front door of `host` (a server.Host in this process)."""

    def __init__(self, host, state_dir, *, max_per_address: int = DEFAULT_MAX_PER_ADDRESS,
                 exempt_loopback: bool = True):
        self.host = host
        self.state_dir = Path(state_dir)
        self.cap = PeerCap(max_per_address, exempt_loopback)
        self.port: int | None = None
        self.serve: KismetServe | None = None
        self._runner: web.AppRunner | None = None

    def command(self) -> str:
        # A visitor has no identity to take a seat back with: always a new member (--fresh),
        # their tokens written apart from any ssh or local player's.
        seats = self.state_dir / "web-seats.json"
        address = f"{self.host.connect_address()}:{self.host.port}"
        return shlex.join([sys.executable, "-c", JOIN_CODE, address, "--ask-name", "--fresh",
                           "--seats-file", str(seats)])

    async def start(self, bind: str = "0.0.0.0", port: int = DEFAULT_WEB_PORT) -> None:
        self.serve = KismetServe(self.command(), self.cap, host=bind, port=port, title="Kismet")
        self._runner = web.AppRunner(await self.serve._make_app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, bind, port)
        try:
            await site.start()
        except OSError:
            await self._runner.cleanup()
            raise
        self.port = self._runner.addresses[0][1]  # (host, port, ...) of the one site
        log.info("web on %s:%s", bind, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
