"""`kismet-host --web`: the page is served, pointing at the address the visitor used; in a
real headless Chromium the lobby draws and key presses reach the app: the name typed in the
browser arrives at the host, and the same browser gets its seat back. A websocket client
plays the attacker: huge sizes, floods, other pages' Origins, plain GETs of the socket."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import aiohttp
import pytest

from server.doors import web_session
from server.doors.door_limits import SessionSlots
from server.doors.door_pass import ENVIRONMENT_NAME
from server.table import PLAYING
from server.token_bucket import TokenBucket
from tests.netutil import ROOT, connected, free_port, limit_near_its_peak, wait_until
from tests.webutil import (
    CHROMIUM,
    THIS_BROWSER,
    browser_page,
    needs_chromium,
    own_origin,
    sit_down_as,
    visiting,
    web_host,
)

pytestmark = [pytest.mark.network, pytest.mark.timeout(180)]

# CI installs Chromium (.ci/run): there a missing browser is a failure, not a skip.
if CHROMIUM is None and os.environ.get("CI") == "true":
    raise RuntimeError("CI must run the browser tests, but no Chromium is installed")


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
    assert "<div>Kismet</div>" in page  # the title textual-serve shows
    assert "<title>Kismet</title>" in page  # and the browser's tab
    assert f"ws://127.0.0.1:{web.port}/ws" in page
    assert f"ws://localhost:{web.port}/ws" in other


async def test_too_many_visitors_from_one_address_get_plain_words(tmp_path):
    async with web_host(tmp_path, max_per_address=1, cap_loopback=True) as (host, web):
        assert web.cap.admit("127.0.0.1")  # one visitor already playing from here
        async with visiting(web) as visitor:
            # Said on the visitor's screen (a browser shows no HTTP status), then closed.
            await visitor.wait_for(lambda: visitor.closed)
            assert "already 1 players from your address" in visitor.text()
        assert door_processes(host) == []


async def test_over_the_doors_cap_a_visitor_is_told_the_host_is_full(tmp_path):
    slots = SessionSlots(1)
    async with web_host(tmp_path, slots=slots) as (host, web):
        async with visiting(web) as first:
            await first.wait_for_text("Your name at the table")
            assert slots.taken == 1
            async with visiting(web) as second:
                await second.wait_for(lambda: second.closed)
                assert "The host is full" in second.text()
            assert len(door_processes(host)) == 1
        await wait_until(lambda: slots.taken == 0)
        async with visiting(web) as third:  # the first one's slot is free again
            await third.wait_for_text("Your name at the table")


async def open_and_name(tools, web, name: str) -> None:
    """(Re)open the page in the browser and type `name` at its prompt."""
    tools.screen = None  # a new page: a new screen
    await tools.call("Page.navigate", url=f"http://127.0.0.1:{web.port}/")
    await tools.wait_for_text("Your name at the table")
    # The prompt can be drawn a moment before its input has the focus: type until the name
    # shows in the field.
    for _ in range(5):
        await tools.type(name)
        with contextlib.suppress(AssertionError):
            await tools.wait_for_text(name, timeout=5)
            break
    await tools.press_enter()


@needs_chromium
async def test_a_real_browser_draws_the_app_and_its_keys_reach_it(tmp_path):
    async with web_host(tmp_path) as (host, web), browser_page(tmp_path / "chromium") as tools:
        await open_and_name(tools, web, "Webby")
        await wait_until(lambda: any(p.name == "Webby" for p in host.players.values()), timeout=60)
        text = await tools.wait_for_text("Tables")
        assert "New table" in text


@needs_chromium
async def test_a_returning_browser_gets_its_running_seat_back(tmp_path):
    async with web_host(tmp_path) as (host, web), connected(host, "Bo") as bo:
        async with browser_page(tmp_path / "chromium") as tools:
            await open_and_name(tools, web, "Webby")
            await wait_until(
                lambda: any(p.name == "Webby" and p.conn for p in host.players.values())
            )
            (webby,) = [p for p in host.players.values() if p.name == "Webby"]
            table = await bo.create_table("dice")
            await tools.wait_for_text("Bo")
            await tools.press_enter()  # sit at Bo's table
            await wait_until(lambda: webby.table is not None)
            await tools.type("y")
            await bo.ready()
            await wait_until(lambda: all(seat.ready for seat in webby.table.seats if not seat.bot))
            await bo.start()
            await wait_until(lambda: webby.table.state == PLAYING)
            # The tab is reloaded (or closed and opened again): the same browser, its storage
            # kept, and the same name: the same seat, mid-game.
            first_visit = webby.conn
            await open_and_name(tools, web, "Webby")
            await wait_until(lambda: webby.conn not in (None, first_visit))
            assert [p for p in host.players.values() if p.name == "Webby"] == [webby]
            assert webby.table is not None and webby.table.id == table["id"]
            await tools.wait_for_text("Bo")


# ---- the attacker's side: a plain websocket client ------------------------------------------


def door_processes(host) -> list[int]:
    """The web door's app processes for `host`, alive (not zombies), found in /proc by their
    command line, however the door started them: a `kismet-join` of their own, or a child of
    the host's warm parent (which has its command line, naming the host's port)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            parent_cmdline = Path(f"/proc/{stat[1]}/cmdline").read_bytes()
        except OSError:
            continue
        for_this_host = f":{host.port}\0".encode() in cmdline
        spawned = b"kismet_tui.door_child" in cmdline
        forked = b"server.doors.door_forker" in cmdline and parent_cmdline == cmdline
        if for_this_host and (spawned or forked) and stat[0] != "Z":
            found.append(int(entry))
    return found


async def test_huge_sizes_are_clamped_in_the_query_and_in_resize_messages(tmp_path):
    async with web_host(tmp_path) as (host, web):
        async with visiting(web, "?width=100000&height=100000", cols=500, rows=200) as visitor:
            assert fits(await frame_size(visitor, 200), (200, 500))
            # (drawn 200 rows high: the app was told 500x200. /proc's environ would show a
            # forked app's parent's start, not what the door handed it.)
            assert len(door_processes(host)) == 1
            await resize(visitor, 90, 30)
            assert fits(await frame_size(visitor, 30), (30, 90))
            await resize(visitor, 100000, 100000)
            assert fits(await frame_size(visitor, 200), (200, 500))


def fits(drawn: tuple[int, int], size: tuple[int, int]) -> bool:
    """The frame reached the last row of `size` and went no further either way."""
    return drawn[0] == size[0] and drawn[1] <= size[1]


CURSOR_MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")  # row;column


def resize(visitor, width, height):
    visitor.raw = b""
    return visitor.ws.send_str(json.dumps(["resize", {"width": width, "height": height}]))


async def frame_size(visitor, rows: int) -> tuple[int, int]:
    """Wait until the app has drawn a whole frame `rows` high, from its top line to its
    footer; the furthest (row, column) that frame moved to."""
    footer = re.compile(rb"\x1b\[%d;1H(?:(?!\x1b\[\d+;\d+H).)*Quit" % rows, re.DOTALL)
    await visitor.wait_for(lambda: footer.search(visitor.raw) is not None)
    end = footer.search(visitor.raw).end()
    frame = visitor.raw[visitor.raw.rindex(b"\x1b[1;1H", 0, end) : end]
    moves = [(int(m.group(1)), int(m.group(2))) for m in CURSOR_MOVE.finditer(frame)]
    return max(row for row, _ in moves), max(column for _, column in moves)


async def test_a_socket_opened_from_another_page_is_refused_with_words(tmp_path):
    async with web_host(tmp_path) as (host, web):
        async with aiohttp.ClientSession() as session:
            for origin in ({"Origin": "http://evil.example"}, {}):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await session.ws_connect(f"http://127.0.0.1:{web.port}/ws", headers=origin)
                assert refused.value.status == 403
            async with session.get(
                f"http://127.0.0.1:{web.port}/ws",
                headers={
                    "Origin": "http://evil.example",
                    "Connection": "Upgrade",
                    "Upgrade": "websocket",
                    "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                },
            ) as response:
                assert response.status == 403
                assert "only from its own page" in await response.text()
        assert door_processes(host) == []
        async with visiting(web) as visitor:  # the page's own Origin is let in
            await visitor.wait_for_text("Your name at the table")


async def test_a_plain_get_of_the_socket_gets_words_and_one_log_line_at_most(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    async with web_host(tmp_path) as (host, web):
        async with aiohttp.ClientSession() as session:
            async with session.get(
                f"http://127.0.0.1:{web.port}/ws", headers=own_origin(web)
            ) as response:
                assert response.status == 400
                words = await response.text()
    assert "websocket" in words and "http://127.0.0.1" in words
    assert "Traceback" not in caplog.text
    assert len([r for r in caplog.records if r.name.startswith(("kismet.web", "aiohttp"))]) <= 1


async def test_no_folder_is_listed_and_the_page_needs_nothing_from_the_internet(tmp_path):
    async with web_host(tmp_path) as (host, web):
        base = f"http://127.0.0.1:{web.port}"
        async with aiohttp.ClientSession() as session:
            for folder in ("/static/", "/static/js/", "/static/fonts/", "/static/css/"):
                async with session.get(base + folder) as response:
                    assert response.status == 404, folder
            async with session.get(base + "/") as response:
                page = await response.text()
            addresses = set(re.findall(r"(?:https?|wss?)://[^\s\"'<>)]+", page))
            assert addresses and all(
                a.startswith((base, f"ws://127.0.0.1:{web.port}")) for a in addresses
            ), addresses
            async with session.get(base + "/static/js/textual.js") as response:
                assert response.status == 200


async def test_a_flooded_visitor_process_ends_with_its_socket(tmp_path):
    async with web_host(tmp_path) as (host, web):
        async with visiting(web, leave_abruptly=True) as visitor:
            await visitor.wait_for_text("Your name at the table")
            (pid,) = door_processes(host)
            flood = json.dumps(["stdin", "x" * 60000])

            async def paste_3_mb() -> None:
                for _ in range(50):
                    await visitor.ws.send_str(flood)

            sending = asyncio.ensure_future(paste_3_mb())
            await asyncio.wait({sending}, timeout=5)  # the door may stop reading: that is right
            sending.cancel()
        # The visitor has gone, mid-flood: their app's whole process group goes, reaped.
        await wait_until(lambda: gone_with_its_group(pid), timeout=30)


def gone_with_its_group(pid: int) -> bool:
    """The process is gone, reaped, and so is every process in a group it led."""
    if Path(f"/proc/{pid}").exists():
        return False
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_a_game_that_hits_its_memory_limit_ends_with_words(tmp_path, caplog):
    # A ceiling the app cannot even start under (32 MiB: the interpreter starts, Textual
    # cannot): it stops the way a runaway app would. (120 MiB was enough once the first
    # screen stopped loading numpy and the solver.)
    async with web_host(tmp_path, session_address_space=32 * 1024 * 1024) as (host, web):
        async with visiting(web) as visitor:
            await visitor.wait_for(lambda: visitor.closed)
            assert "more memory than this host gives one player" in visitor.text()
            assert "Traceback" not in visitor.text()
        assert door_processes(host) == []
    assert "at its memory limit" in caplog.text


def test_the_key_budget_gives_a_burst_then_a_steady_rate():
    budget = TokenBucket(burst=4000, per_second=1000, now=0.0)
    assert budget.owe(4000, 0.0) == 0  # a pasted name goes at once
    assert budget.owe(500, 0.0) == pytest.approx(0.5)  # past the burst: wait for the rate
    assert budget.owe(1000, 0.5) == pytest.approx(1.0)
    assert budget.owe(4000, 100.5) == 0  # a quiet while refills the burst, no more
    assert budget.owe(1, 100.5) > 0


async def test_a_key_flood_reaches_the_app_no_faster_than_the_budget(tmp_path, monkeypatch):
    # A small budget, so that its bound stands out from the app's other reads.
    per_second, burst = 1024, 2048
    monkeypatch.setattr(
        web_session, "input_budget", lambda: TokenBucket(burst, per_second, time.monotonic())
    )
    async with web_host(tmp_path) as (host, web):
        async with visiting(web, leave_abruptly=True) as visitor:
            await visitor.wait_for_text("Your name at the table")
            (pid,) = door_processes(host)
            await reads_settle(pid)  # (its start-up's lazy imports are not the visitor's keys)
            read_before = app_input_read(pid)
            started = asyncio.get_running_loop().time()

            async def paste_480_kb() -> None:
                for _ in range(8):
                    await visitor.type("x" * 60000)

            sending = asyncio.ensure_future(paste_480_kb())
            try:
                # What the app is given, and so could queue, is the budget's worth: a burst,
                # then a steady rate, not 480 KB at once.
                await wait_until(lambda: app_input_read(pid) - read_before > burst + 2 * per_second)
                given = app_input_read(pid) - read_before
                elapsed = asyncio.get_running_loop().time() - started
                # (+ 8 KB for the packets' headers and a few messages from the host)
                assert given < burst + per_second * (elapsed + 1) + 8 * 1024
            finally:
                sending.cancel()


async def reads_settle(pid: int, polls: int = 5, timeout: float = 30.0) -> None:
    """Wait until the process has read nothing over `polls` looks a tenth of a second apart."""
    deadline = time.monotonic() + timeout
    last, quiet = app_input_read(pid), 0
    while quiet < polls:
        assert time.monotonic() < deadline, "the app never stopped reading"
        await asyncio.sleep(0.1)
        now = app_input_read(pid)
        quiet = quiet + 1 if now == last else 0
        last = now


def app_input_read(pid: int) -> int:
    """Bytes the process has read so far (its stdin, mostly: the rest is the host's few
    lobby messages), from /proc/PID/io."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar")


ANOTHER_BROWSER = "a7" * 32


async def test_the_same_browser_gets_its_running_seat_back_and_another_browser_does_not(tmp_path):
    async with web_host(tmp_path) as (host, web), connected(host, "Bo") as bo:
        async with visiting(web, path=f"/ws/{THIS_BROWSER}") as visitor:
            await sit_down_as(visitor, "Ana")
            await visitor.wait_for(
                lambda: any(p.name == "Ana" and p.conn for p in host.players.values())
            )
            (ana,) = [p for p in host.players.values() if p.name == "Ana"]
            # The host is told who this is: the browser, by a hash of its secret.
            (pid,) = door_processes(host)
            door_pass = door_pass_of(web, pid)
            identity = host.door_passes.find(door_pass).identity
            assert identity == "web " + hashlib.sha256(THIS_BROWSER.encode()).hexdigest()
            # Ana sits at Bo's table (enter, then y for ready) and the game starts.
            table = await bo.create_table("dice")
            await visitor.wait_for_text("Bo")
            await visitor.type("\r")
            await visitor.wait_for(lambda: ana.table is not None)
            await visitor.type("y")
            await bo.ready()
            await wait_until(lambda: all(seat.ready for seat in ana.table.seats if not seat.bot))
            await bo.start()
            await wait_until(lambda: ana.table.state == PLAYING)
        await wait_until(lambda: ana.conn is None)
        assert host.door_passes.find(door_pass) is None  # revoked with the session

        async with visiting(web, path=f"/ws/{THIS_BROWSER}") as visitor:  # the same browser
            await sit_down_as(visitor, "Ana")
            await visitor.wait_for(lambda: ana.conn is not None)
            assert [p for p in host.players.values() if p.name == "Ana"] == [ana]
            assert ana.table is not None and ana.table.id == table["id"]
        await wait_until(lambda: ana.conn is None)

        async with visiting(web, path=f"/ws/{ANOTHER_BROWSER}") as other:  # same name, not its seat
            await sit_down_as(other, "Ana")
            # The host refuses the name it sees held (a look-alike counts as the same).
            await other.wait_for(
                lambda: "Somebody called Ana is already at this host" in other.text()
            )
            assert not any(
                p is not ana and p.conn and p.name == "Ana" for p in host.players.values()
            )
            assert ana.conn is None
        async with visiting(web) as stranger:  # no secret at all: a new member
            await sit_down_as(stranger, "Ana")
            # The host refuses the name it sees held (a look-alike counts as the same).
            await stranger.wait_for(
                lambda: "Somebody called Ana is already at this host" in stranger.text()
            )
            assert not any(
                p is not ana and p.conn and p.name == "Ana" for p in host.players.values()
            )
            assert ana.conn is None


async def test_visitors_games_are_forked_and_hold_nothing_of_each_other(tmp_path):
    from tests.sshutil import open_files, parent_of

    async with web_host(tmp_path) as (host, web):
        async with visiting(web) as one, visiting(web) as other:
            await one.wait_for_text("Your name at the table")
            await other.wait_for_text("Your name at the table")
            pids = door_processes(host)
            assert len(pids) == 2 and all(parent_of(pid) == web.forker.process.pid for pid in pids)
            files = [open_files(pid) for pid in pids]
            inodes = [{inode for _target, inode in found.values()} for found in files]
            assert all(found[fd][0].startswith("pipe:") for found in files for fd in (0, 1, 2))
            assert not inodes[0] & inodes[1], "two visitors' games share an open file"
            forker = {inode for _target, inode in open_files(web.forker.process.pid).values()}
            assert not (inodes[0] | inodes[1]) & forker


def door_pass_of(web, pid: int) -> str:
    """The door pass the door handed the session's client whose process is `pid` (a forked
    app's /proc environ shows its parent's start, not its own)."""
    for session in web.sessions:
        if session.pid == pid and ENVIRONMENT_NAME in session.environment:
            return session.environment[ENVIRONMENT_NAME]
    raise AssertionError("the client was handed no door pass")


async def test_a_malformed_browser_secret_is_refused_in_words(tmp_path):
    async with web_host(tmp_path) as (host, web):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with visiting(web, path="/ws/not-a-secret"):
                pass
        assert refused.value.status == 400
        assert door_processes(host) == []


@contextlib.contextmanager
def web_host_process(state_dir, *options: str):
    """A real `kismet-host --web` process on 127.0.0.1 (no bots, no announcing); yields an
    object with its `.port` and `.web_port`, and the process as `.proc`."""
    ports = types.SimpleNamespace(port=free_port(), web_port=free_port())
    ports.proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "--bind",
            "127.0.0.1",
            "--port",
            str(ports.port),
            "--web",
            str(ports.web_port),
            "--state-dir",
            str(state_dir),
            "--bots",
            "0",
            "--no-announce",
            *options,
        ],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield ports
    finally:
        ports.proc.kill()
        ports.proc.wait(10)


async def page_answers(port: int) -> bool:
    with contextlib.suppress(aiohttp.ClientError):
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/") as response:
                return response.status == 200
    return False


async def test_kismet_host_web_origin_names_the_page_let_in(tmp_path):
    with web_host_process(tmp_path, "--web-origin", "https://kismet.example") as ports:
        await wait_until_async(lambda: page_answers(ports.web_port))
        web = types.SimpleNamespace(port=ports.web_port)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with visiting(web):
                pass
        assert refused.value.status == 403
        async with visiting(web, headers={"Origin": "https://kismet.example"}) as visitor:
            await visitor.wait_for_text("Your name at the table")


async def refused_status(port: int, host: str, origin: str) -> int | None:
    """The status a websocket asked for at 127.0.0.1:`port` with these Host and Origin
    headers is refused with (None: let in, then closed at once)."""
    async with aiohttp.ClientSession() as session:
        try:
            ws = await session.ws_connect(
                f"http://127.0.0.1:{port}/ws", headers={"Host": host, "Origin": origin}
            )
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status
        await ws.close()
        return None


async def test_dns_rebinding_is_refused_the_hosts_own_names_let_in(tmp_path):
    # A page at evil.example, its name pointed at this machine after it loaded, names
    # itself in both headers; only this machine's addresses and --web-origin's names pass.
    with web_host_process(tmp_path, "--web-origin", "https://kismet.example") as ports:
        await wait_until_async(lambda: page_answers(ports.web_port))
        port = ports.web_port
        evil = f"evil.example:{port}"
        assert await refused_status(port, evil, f"http://{evil}") == 403
        assert await refused_status(port, evil, "https://kismet.example") == 403
        assert (
            await refused_status(port, "kismet.example.evil.example", "https://kismet.example")
            == 403
        )
        # The names it serves: --web-origin's, and the address the socket arrived at.
        assert await refused_status(port, "kismet.example", "https://kismet.example") is None
        assert await refused_status(port, f"127.0.0.1:{port}", "https://kismet.example") is None
    with web_host_process(tmp_path) as ports:
        await wait_until_async(lambda: page_answers(ports.web_port))
        port = ports.web_port
        assert (
            await refused_status(port, f"evil.example:{port}", f"http://evil.example:{port}") == 403
        )
        for own in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert await refused_status(port, own, f"http://{own}") is None, own
        async with aiohttp.ClientSession() as session:
            async with session.get(
                f"http://127.0.0.1:{port}/ws",
                headers={
                    "Host": f"evil.example:{port}",
                    "Origin": f"http://evil.example:{port}",
                    "Connection": "Upgrade",
                    "Upgrade": "websocket",
                    "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                },
            ) as response:
                assert response.status == 403
                assert "this host's own addresses" in await response.text()


async def test_a_visitors_game_dies_with_a_killed_host(tmp_path):
    with web_host_process(tmp_path) as ports:
        await wait_until_async(lambda: page_answers(ports.web_port))
        async with visiting(
            types.SimpleNamespace(port=ports.web_port), leave_abruptly=True
        ) as visitor:
            await visitor.wait_for_text("Your name at the table")
            (pid,) = door_processes(ports)
            ports.proc.kill()  # no chance to end its sessions: SIGKILL
            # The parent-death signal ends the game: no orphan left to the machine.
            await wait_until(lambda: gone_with_its_group(pid), timeout=30)


async def wait_until_async(check, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


# A Textual app that fails as it starts, and exits as kismet-join does (its app's return
# code): the door runs it in place of the game.
FAILING_APP = """
import sys
from textual.app import App
class Failing(App):
    def on_mount(self):
        raise RuntimeError("a bug in the game")
app = Failing()
app.run()
sys.exit(app.return_code or 0)
"""


async def test_a_game_that_fails_leaves_words_not_a_frozen_screen(tmp_path, monkeypatch, caplog):
    # (started anew: the warm parent runs only the game)
    monkeypatch.setattr(web_session, "JOIN_CODE", FAILING_APP)
    async with web_host(tmp_path, door_sessions="spawn") as (host, web):
        async with visiting(web) as visitor:
            await visitor.wait_for(lambda: visitor.closed)
            assert "Your game stopped unexpectedly" in visitor.text()
            assert "Traceback" not in visitor.text() and "a bug in the game" not in visitor.text()
    assert "ended with code 1" in caplog.text  # one line in the host's log says so


async def test_a_game_wedged_at_its_memory_limit_ends_with_words(tmp_path, caplog):
    # Neither dead nor drawing at its limit (stopped, here): once it leaves keys and a new
    # size unanswered, the door ends it with the memory words, as the ssh door does
    # (tests/test_ssh_hostile.py, one rule: session_policy.WedgeWatch).
    async with web_host(tmp_path) as (host, web):
        async with visiting(web) as visitor:
            await visitor.wait_for_text("Your name at the table")
            (session,) = web.sessions
            limit_near_its_peak(session.pid)
            sizes = [(100, 30), (80, 24)]
            while not session.memory.near:  # the door looks while the app draws
                await resize(visitor, *sizes[0])
                sizes.reverse()
                with contextlib.suppress(asyncio.TimeoutError):
                    await visitor.read(0.2)
            os.kill(session.pid, signal.SIGSTOP)
            await resize(visitor, *sizes[0])
            # A key every half second, as a visitor at a frozen page presses them: what the
            # app drew before it stopped may reach the door after one key, and drawing is
            # an answer (tests/test_ssh_hostile.py pressing_until).
            deadline = time.monotonic() + 60
            while not visitor.closed:
                assert time.monotonic() < deadline, "timed out waiting for the session's end"
                await visitor.type("x")
                with contextlib.suppress(asyncio.TimeoutError):
                    await visitor.read(0.5)
            assert "more memory than this host gives one player" in visitor.text()
            assert "Traceback" not in visitor.text()
        assert door_processes(host) == []
    assert "has drawn nothing" in caplog.text


async def test_a_game_that_crashes_far_from_its_memory_limit_is_said_to_have_crashed(tmp_path):
    # One verdict for both doors (server/doors/session_policy.py): a crash far from the
    # limit is a crash, as the ssh door says (tests/test_ssh_hostile.py); this door called
    # every SIGSEGV a lack of memory.
    async with web_host(tmp_path) as (host, web):
        async with visiting(web) as visitor:
            await visitor.wait_for_text("Your name at the table")
            (session,) = web.sessions
            assert session.pid is not None and not session.memory.near
            os.kill(session.pid, signal.SIGSEGV)
            await visitor.wait_for(lambda: visitor.closed)
            assert "Your game stopped unexpectedly" in visitor.text()
            assert "more memory" not in visitor.text()
        assert door_processes(host) == []
