"""Helpers of the browser door's tests: a web host, a visiting browser, sitting down (shared by
tests/test_web.py and the tests of saved seats in the browser)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import shutil
import subprocess
from urllib.parse import parse_qs, urlparse

import aiohttp
import pyte
import pytest

from server.doors.web import WebServer
from tests.netutil import free_port, host_with_door

CHROMIUM = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome")
        if shutil.which(name)
    ),
    None,
)


def web_host(state_dir, **kwargs):
    return host_with_door(WebServer, state_dir, **kwargs)


# Run in the page before its own scripts: keep a copy of every binary websocket message (the
# app's screen output, which xterm.js then paints on a canvas).
RECORD_SCREEN = """
window.__kismetScreen = [];
const PageSocket = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new PageSocket(url, protocols);
  window.__kismetSocketUrl = String(url);
  socket.addEventListener('message', (event) => {
    if (event.data instanceof ArrayBuffer) {
      let text = '';
      for (const byte of new Uint8Array(event.data)) text += String.fromCharCode(byte);
      window.__kismetScreen.push(btoa(text));
    }
  });
  return socket;
};
Object.assign(window.WebSocket, PageSocket);
window.WebSocket.prototype = PageSocket.prototype;
"""


class DevTools:
    """A minimal Chrome DevTools Protocol client over the page's websocket."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.screen = None
        self.stream = None

    async def call(self, method: str, **params):
        self.next_id += 1
        await self.ws.send_str(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads((await self.ws.receive()).data)
            if msg.get("id") == self.next_id:
                return msg.get("result", {})

    async def evaluate(self, expression: str):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def screen_text(self) -> str:
        """What the page's terminal shows: xterm.js draws on a canvas, so the bytes the page
        received for it (RECORD_SCREEN) are played through a terminal emulator here."""
        if self.screen is None:
            url = await self.evaluate("window.__kismetSocketUrl")
            if not url:
                return ""
            # The page sized the app to its window: ws://...?width=W&height=H
            query = parse_qs(urlparse(url).query)
            self.screen = pyte.Screen(int(query["width"][0]), int(query["height"][0]))
            self.stream = pyte.ByteStream(self.screen)
        chunks = await self.evaluate("window.__kismetScreen.splice(0)") or []
        for chunk in chunks:
            self.stream.feed(base64.b64decode(chunk))
        return "\n".join(self.screen.display)

    async def wait_for_text(self, words: str, timeout: float = 60.0) -> str:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            text = await self.screen_text()
            if words in text:
                return text
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"the browser never showed {words!r}; it shows:\n{text}")
            await asyncio.sleep(0.2)

    async def type(self, text: str) -> None:
        await self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        await self.call("Input.insertText", text=text)

    async def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            await self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key="Enter",
                code="Enter",
                windowsVirtualKeyCode=13,
                nativeVirtualKeyCode=13,
                **({"text": "\r"} if kind == "keyDown" else {}),
            )


needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)"
)


@contextlib.asynccontextmanager
async def browser_page(user_data_dir):
    """A headless Chromium (its profile, and so its storage, in `user_data_dir`) and a
    DevTools client on its one page, which records the app's screen (RECORD_SCREEN)."""
    debug_port = free_port()
    browser = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={user_data_dir}",
            f"--remote-debugging-port={debug_port}",
            "--window-size=1200,800",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with aiohttp.ClientSession() as session:
            targets = []
            # (Chromium starts in a second or two on a quiet machine; beside a busy suite it
            # can take far longer: wait while it runs, up to a generous bound.)
            deadline = asyncio.get_running_loop().time() + 90
            while browser.poll() is None and asyncio.get_running_loop().time() < deadline:
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(f"http://127.0.0.1:{debug_port}/json") as response:
                        targets = [t for t in await response.json() if t.get("type") == "page"]
                if targets:
                    break
                await asyncio.sleep(0.1)
            assert targets, "Chromium did not open the page"
            async with session.ws_connect(targets[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                tools = DevTools(ws)
                await tools.call("Page.enable")
                await tools.call("Page.addScriptToEvaluateOnNewDocument", source=RECORD_SCREEN)
                yield tools
    finally:
        browser.terminate()
        browser.wait(10)


class Visitor:
    """One websocket visitor: what the app drew, played through a terminal emulator."""

    def __init__(self, ws, cols: int = 80, rows: int = 24):
        self.ws = ws
        self.raw = b""  # what the app drew since the test last emptied it
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.closed = False

    async def read(self, timeout: float) -> None:
        message = await asyncio.wait_for(self.ws.receive(), timeout)
        if message.type == aiohttp.WSMsgType.BINARY:
            self.raw += message.data
            self.stream.feed(message.data)
        elif message.type in (
            aiohttp.WSMsgType.CLOSE,
            aiohttp.WSMsgType.CLOSED,
            aiohttp.WSMsgType.CLOSING,
            aiohttp.WSMsgType.ERROR,
        ):
            self.closed = True

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, condition, timeout: float = 60.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not condition():
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0 or self.closed:
                raise AssertionError(f"the visitor never saw it; the screen shows:\n{self.text()}")
            with contextlib.suppress(asyncio.TimeoutError):
                await self.read(min(left, 1.0))

    async def wait_for_text(self, words: str, timeout: float = 60.0) -> None:
        await self.wait_for(lambda: words in self.text(), timeout)

    async def type(self, text: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", text]))


def own_origin(web) -> dict[str, str]:
    return {"Origin": f"http://127.0.0.1:{web.port}"}


@contextlib.asynccontextmanager
async def visiting(
    web,
    query: str = "",
    *,
    path: str = "/ws",
    cols: int = 80,
    rows: int = 24,
    headers=None,
    leave_abruptly: bool = False,
):
    """A websocket visitor of `web`, sent from the page's own Origin unless `headers` say. On
    exit they close their socket, or (`leave_abruptly`) just drop the connection, as a closed
    tab or a flooding attacker does."""
    async with aiohttp.ClientSession() as session:
        url = f"http://127.0.0.1:{web.port}{path}{query}"
        ws = await session.ws_connect(
            url, headers=own_origin(web) if headers is None else headers, max_msg_size=0
        )
        try:
            yield Visitor(ws, cols, rows)
        finally:
            if not leave_abruptly:
                await ws.close()


# Two browsers' secrets, as the page makes them (32 random bytes in hex).
THIS_BROWSER = "5e" * 32


async def sit_down_as(visitor, name: str) -> None:
    await visitor.wait_for_text("Your name at the table")
    await visitor.type(name + "\r")
