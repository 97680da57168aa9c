"""Chat cannot hurt a player, in the app (issue 28, attack 1): however much chat comes, the
lobby's and a game's logs keep a bounded number of lines, the game is not redrawn for chat,
lines beyond what the app can show are counted and told as one; and the owner's `m` mutes
the watchers through a real host, the footer naming it and everyone told in words."""

from __future__ import annotations

import asyncio

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from kismet_tui.screens.game import GameScreen, MoveLog
from kismet_tui.screens.lobby import LobbyScreen
from protocol import limits
from tests.hostutil import peer
from tests.netutil import connected, running_host
from tests.scripted import ScriptedClient, table_for
from tests.uiutil import footer_keys, make_app, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(180)]

BURST = 500  # lines at once: more than the app lets wait
WAVES = 30  # then lines in waves the app can keep up with, 40 each: 1,200 lines in all
WAVE = 40
LINE = "the dice are cold tonight and so is the tea " * 2


class ChattyClient(ScriptedClient):
    """A host that says what ScriptedClient's does, then floods the table's chat."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.screen_up = asyncio.Event()  # the test saw the screen the chat is shown on
        self.burst_seen = asyncio.Event()  # the test looked at what the burst left
        self.flooded = asyncio.Event()
        self.shown = lambda text: True  # whether the app shows a line with `text` (the test's)

    async def messages(self):
        yield {"type": "welcome"}
        yield {"type": "table", "table": self.table}
        yield {"type": "tables", "tables": self.tables}
        await self.screen_up.wait()
        for n in range(BURST):
            yield {"type": "chat", "from": 9, "name": "Watcher", "text": f"burst {n} {LINE}"}
        await self.burst_seen.wait()
        for wave in range(WAVES):
            # A wave once the app has shown the one before: waves it keeps up with.
            while wave and not self.shown(f"wave {wave - 1}.{WAVE - 1} "):
                await asyncio.sleep(0.01)
            for n in range(WAVE):
                yield {
                    "type": "chat",
                    "from": 9,
                    "name": "Watcher",
                    "text": f"wave {wave}.{n} {LINE}",
                }
        self.flooded.set()
        await asyncio.Event().wait()


def logged(log: MoveLog) -> str:
    return "\n".join(strip.text for strip in log.lines)


@pytest.mark.parametrize("where", ["lobby", "game"])
async def test_a_chat_flood_leaves_every_log_bounded(where):
    if where == "game":
        client = ChattyClient.at("dice", ["Ana", "Bo"], until=lambda game: True)  # one event in
    else:
        client = ChattyClient(None, [], table_for("dice", ["Ana", "Bo"], state="lobby"))
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        screen_type = GameScreen if where == "game" else LobbyScreen
        await wait_for(pilot, lambda: isinstance(app.screen, screen_type), what=f"the {where}")
        screen = app.screen
        log = screen.query_one("#movelog" if where == "game" else "#lobbylog", MoveLog)
        version = getattr(screen, "version", 0)
        client.shown = lambda text: bool(app.chat_lines) and text in app.chat_lines[-1].plain
        client.screen_up.set()
        # The burst: as many lines as may wait were shown, the rest counted in one line.
        skipped = f"{BURST - limits.CLIENT_CHAT_WAITING} lines of chat were skipped"
        await wait_for(
            pilot, lambda: any(skipped in line.plain for line in app.chat_lines), what="the count"
        )
        lines = [line.plain for line in app.chat_lines]
        assert len(lines) == limits.CLIENT_CHAT_WAITING + 1 and skipped in lines[-1]
        assert skipped in logged(log)
        client.burst_seen.set()
        await wait_for(pilot, client.flooded.is_set, what="the flood's end")
        last = f"wave {WAVES - 1}.{WAVE - 1} "
        await wait_for(
            pilot, lambda: app.chat_lines and last in app.chat_lines[-1].plain, what="the last line"
        )
        await pilot.pause()
        # The waves were all shown, the newest last; what is kept is bounded everywhere.
        assert last in logged(log)
        assert len(app.chat_lines) == limits.CLIENT_CHAT_LINES
        assert len(log.said) <= MoveLog.KEEP
        assert len(log.lines) <= MoveLog.MAX_LINES
        # Chat never redraws the game: only host messages about it do.
        assert getattr(screen, "version", 0) == version


async def test_the_owner_mutes_the_watchers_with_m(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as bo:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await pilot.press("n", "enter")
            await wait_for(pilot, lambda: client.table is not None, what="the table")
            table_id = client.table["id"]
            await bo.join_table(table_id)
            assert "m" not in footer_keys(app)  # nobody watches: nothing to mute
            watcher = await peer(host.port, "Cy")
            assert (
                await watcher.ask({"type": "join_table", "table": table_id, "spectator": True})
            )["type"] == "ok"
            await wait_for(
                pilot, lambda: footer_keys(app).get("m") == "Mute watchers", what="m in the footer"
            )
            await pilot.press("m")
            await wait_for(
                pilot, lambda: (client.table or {}).get("watchers_muted") is True, what="the mute"
            )
            await wait_for(
                pilot,
                lambda: any("turned off the watchers' chat" in n for n in app.notices_shown),
                what="the words",
            )
            await wait_for(
                pilot,
                lambda: footer_keys(app).get("m") == "Let watchers talk",
                what="m, to undo it",
            )
            assert "watchers' chat: off" in str(app.screen.query_one("#mytable").content)
            muted = await watcher.ask({"type": "chat", "text": "hello?"})
            assert muted["code"] == "chat_muted" and "only the players can talk" in muted["words"]
            # Bo is no owner: he has no such key, and the host refuses him in words.
            try:
                await bo.mute_watchers(False)
            except Exception as refusal:
                assert getattr(refusal, "code", None) == "not_owner"
            else:
                raise AssertionError("Bo, no owner, unmuted the watchers")
            await pilot.press("m")
            await wait_for(
                pilot,
                lambda: (client.table or {}).get("watchers_muted") is False,
                what="the unmute",
            )
            assert (await watcher.ask({"type": "chat", "text": "thanks"}))["type"] == "ok"
            watcher.close()
            await client.close()


async def test_the_net_client_lets_a_bounded_number_of_chat_lines_wait(tmp_path):
    """A host (here a scripted one, on real TCP) that sends more chat than a listener takes:
    the client keeps at most CLIENT_CHAT_WAITING lines waiting and counts the rest."""
    from protocol import encode

    async def host_side(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(4096)  # the hello
        writer.write(
            encode(
                {
                    "type": "welcome",
                    "client_id": 1,
                    "token": "t" * 24,
                    "name": "Ana",
                    "version": limits.PROTOCOL_VERSION,
                    "now": 0,
                    "table": None,
                    "re": 0,
                }
            )
        )
        for n in range(5000):
            writer.write(
                encode({"type": "chat", "from": 2, "name": "Bo", "text": f"line {n}", "t": 0})
            )
        writer.write(encode({"type": "pong", "now": 0}))
        await writer.drain()
        await reader.read()  # the line stays open until the client hangs up

    server = await asyncio.start_server(host_side, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = Client(reconnect=False)
    stream = client.messages()
    try:
        await client.connect("127.0.0.1", port, "Ana")
        inbox = client._queues[0]
        while not any(m["type"] == "pong" for m in inbox.waiting()):
            await asyncio.sleep(0.01)
        kinds = [m["type"] for m in inbox.waiting()]
        assert kinds.count("chat") == limits.CLIENT_CHAT_WAITING
        assert kinds.count("chat_skipped") == 1
        got = [await stream.__anext__() for _ in range(len(kinds))]
        note = next(m for m in got if m["type"] == "chat_skipped")
        assert note["count"] == 5000 - limits.CLIENT_CHAT_WAITING
        assert f"{note['count']} lines of chat were skipped" in note["words"]
    finally:
        await client.close()
        server.close()
