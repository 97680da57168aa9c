"""`kismet-host --web`: the page is served, pointing at the address the visitor used; in a
real headless Chromium (where the system has one) the lobby draws and key presses reach the
app: the name typed in the browser arrives at the host."""

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

from server.web import WebServer
from tests.netutil import free_port, host_with_door, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(name)), None)


def web_host(state_dir, **kwargs):
    return host_with_door(WebServer, state_dir, **kwargs)


async def test_the_page_is_served_and_points_at_the_address_used(tmp_path):
    async with web_host(tmp_path) as (host, web):
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{web.port}/") as response:
                assert response.status == 200
                page = await response.text()
            async with session.get(f"http://localhost:{web.port}/") as response:
                other = await response.text()
            async with session.get(f"http://127.0.0.1:{web.port}/static/js/textual.js") as response:
                assert response.status == 200
    assert "<div>Kismet</div>" in page                      # the title textual-serve shows
    assert f"ws://127.0.0.1:{web.port}/ws" in page
    assert f"ws://localhost:{web.port}/ws" in other


async def test_too_many_visitors_from_one_address_get_plain_words(tmp_path):
    async with web_host(tmp_path, max_per_address=1, exempt_loopback=False) as (host, web):
        assert web.cap.admit("127.0.0.1")   # one visitor already playing from here
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{web.port}/ws") as response:
                assert response.status == 429
                assert "already 1 players from your address" in await response.text()


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
            await self.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter",
                            windowsVirtualKeyCode=13, nativeVirtualKeyCode=13,
                            **({"text": "\r"} if kind == "keyDown" else {}))


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
async def test_a_real_browser_draws_the_app_and_its_keys_reach_it(tmp_path):
    debug_port = free_port()
    async with web_host(tmp_path) as (host, web):
        browser = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={tmp_path / 'chromium'}", f"--remote-debugging-port={debug_port}",
             "--window-size=1200,800", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            async with aiohttp.ClientSession() as session:
                targets = []
                for _ in range(300):
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
                    await tools.call("Page.navigate", url=f"http://127.0.0.1:{web.port}/")
                    await tools.wait_for_text("Your name at the table")
                    # The prompt can be drawn a moment before its input has the focus: type
                    # until the name shows in the field.
                    for _ in range(5):
                        await tools.type("Webby")
                        with contextlib.suppress(AssertionError):
                            await tools.wait_for_text("Webby", timeout=5)
                            break
                    await tools.press_enter()
                    await wait_until(lambda: any(p.name == "Webby" for p in host.players.values()),
                                     timeout=60)
                    text = await tools.wait_for_text("Tables")
                    assert "New table" in text
        finally:
            browser.terminate()
            browser.wait(10)
