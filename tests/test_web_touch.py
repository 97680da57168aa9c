"""The browser door on a phone: a real headless Chromium with a touch screen of 844x390 (a
phone held sideways) fits the game's 80x24, asks to be turned in portrait, sends taps as
clicks and the key bar's keys as keys, brings no keyboard up but for a text field, and a solo
dice game and a race round are played by taps alone. Each game leaves a screenshot in the
test's folder, its path printed, and in the folder TEST_ARTIFACTS names if set (CI sets it)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
from pathlib import Path

import pytest

from server.table import PLAYING
from tests.netutil import connected, looked_at_the_dice, wait_until
from tests.webutil import browser_page, needs_chromium, web_host

pytestmark = [pytest.mark.network, pytest.mark.timeout(240), needs_chromium]

PHONE = (844, 390)  # a phone held sideways, in CSS pixels
MIN_COLS, MIN_ROWS = 80, 24  # kismet_tui/widgets/toosmall.py


class Phone:
    """The page in a touch-screen Chromium, read from xterm.js's own buffer (what it shows,
    at whatever size the page fitted it) and driven by touches."""

    def __init__(self, tools) -> None:
        self.tools = tools

    async def evaluate(self, expression: str):
        return await self.tools.evaluate(expression)

    async def screen(self) -> list[str]:
        lines = await self.evaluate("""(() => {
            const view = typeof kismetTouch !== "undefined" && kismetTouch.view();
            if (!view) return [];
            const buffer = view.terminal.buffer.active, out = [];
            for (let row = 0; row < view.terminal.rows; row++) {
              const line = buffer.getLine(buffer.viewportY + row);
              out.push(line ? line.translateToString(true) : "");
            }
            return out;
        })()""")
        return lines or []

    async def wait_for(self, words: str, timeout: float = 60.0) -> list[str]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            lines = await self.screen()
            if any(words in line for line in lines):
                return lines
            if asyncio.get_running_loop().time() > deadline:
                shown = "\n".join(lines)
                raise AssertionError(f"the phone never showed {words!r}; it shows:\n{shown}")
            await asyncio.sleep(0.1)

    async def tap_at(self, x: float, y: float) -> None:
        """One finger down and up at (x, y) CSS pixels: the browser makes it a click."""
        await self.tools.call(
            "Input.dispatchTouchEvent", type="touchStart", touchPoints=[{"x": x, "y": y}]
        )
        await self.tools.call("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])

    async def cell_box(self) -> dict:
        return json.loads(
            await self.evaluate("""(() => {
            const screen = document.querySelector('.xterm-screen').getBoundingClientRect();
            const terminal = kismetTouch.view().terminal;
            return JSON.stringify({x: screen.left, y: screen.top, w: screen.width / terminal.cols,
                                   h: screen.height / terminal.rows});
        })()""")
        )

    async def tap_cell(self, col: int, row: int) -> None:
        box = await self.cell_box()
        await self.tap_at(box["x"] + (col + 0.5) * box["w"], box["y"] + (row + 0.5) * box["h"])

    async def tap_text(self, words: str, *, last: bool = False, timeout: float = 60.0) -> None:
        """Tap the middle of `words` where the screen shows them (the lowest such place with
        `last`: the footer, say, under a body naming the same thing)."""
        lines = await self.wait_for(words, timeout)
        places = [(line.find(words), row) for row, line in enumerate(lines) if words in line]
        col, row = places[-1] if last else places[0]
        await self.tap_cell(col + len(words) // 2, row)

    async def tap_key(self, name: str) -> None:
        """Tap the key bar's button for the key `name` (escape, tab, enter, question_mark)."""
        box = json.loads(
            await self.evaluate(f"""(() => {{
            const r = document.querySelector('#keys button[data-key="{name}"]').getBoundingClientRect();
            return JSON.stringify({{x: r.left + r.width / 2, y: r.top + r.height / 2}});
        }})()""")
        )
        await self.tap_at(box["x"], box["y"])

    async def keyboard_mode(self) -> str | None:
        """What the hidden textarea asks of a soft keyboard (none: no keyboard comes up)."""
        return await self.evaluate(
            "document.querySelector('.xterm-helper-textarea').getAttribute('inputmode')"
        )

    async def size(self) -> dict:
        return json.loads(
            await self.evaluate("""JSON.stringify({
            cols: kismetTouch.view().terminal.cols, rows: kismetTouch.view().terminal.rows,
            font: Number(document.body.dataset.fontSize), turn: document.body.classList.contains('-turn'),
            bar: document.getElementById('keys').offsetHeight, socket: window.__kismetSocketUrl})""")
        )

    async def screenshot(self, path: Path) -> Path:
        shot = await self.tools.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))
        print(f"phone screenshot: {path}")
        if os.environ.get("TEST_ARTIFACTS"):
            folder = Path(os.environ["TEST_ARTIFACTS"])
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, folder / path.name)
        return path


@contextlib.asynccontextmanager
async def phone(
    tmp_path: Path, web, width: int = PHONE[0], height: int = PHONE[1], *, touch: bool = True
):
    """The door's page opened in a Chromium emulating a phone's screen (`touch`) or a
    desktop window of that size."""
    async with browser_page(tmp_path / "chromium") as tools:
        # (device scale 1: an emulated scale of 2 leaves xterm.js's canvas at half its size,
        # which a real 2x screen does not: checked with --force-device-scale-factor=2)
        await tools.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=touch,
        )
        if touch:
            await tools.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        await tools.call("Page.navigate", url=f"http://127.0.0.1:{web.port}/")
        yield Phone(tools)


async def sign_in(phone: Phone, name: str) -> None:
    """Tap the name field, type the name as a soft keyboard does, and tap Enter on the key bar."""
    await phone.wait_for("Your name at the table")
    await phone.tap_text("your name")
    await wait_until_page(
        phone, "document.activeElement.classList.contains('xterm-helper-textarea')"
    )
    for _ in range(5):  # (the field may be drawn a moment before it has the focus)
        await phone.tools.call("Input.insertText", text=name)
        with contextlib.suppress(AssertionError):
            await phone.wait_for(name, timeout=5)
            break
    await phone.tap_key("enter")
    await phone.wait_for("Tables")


async def test_a_phone_in_portrait_is_asked_to_turn_and_fits_once_turned(tmp_path):
    async with web_host(tmp_path) as (host, web), phone(tmp_path, web, PHONE[1], PHONE[0]) as page:
        await page.wait_for("Your name at the table")
        assert (await page.size())["turn"]
        assert (
            await page.evaluate("getComputedStyle(document.querySelector('.turn-dialog')).display")
            == "flex"
        )
        await page.tools.call(
            "Emulation.setDeviceMetricsOverride",
            width=PHONE[0],
            height=PHONE[1],
            deviceScaleFactor=1,
            mobile=True,
        )
        await wait_until_page(page, "!document.body.classList.contains('-turn')")
        size = await page.size()
        assert size["cols"] >= MIN_COLS and size["rows"] >= MIN_ROWS, size
        assert (
            await page.evaluate("getComputedStyle(document.querySelector('.turn-dialog')).display")
            == "none"
        )


async def test_a_desktop_window_keeps_its_font_and_has_no_key_bar(tmp_path):
    async with (
        web_host(tmp_path) as (host, web),
        phone(tmp_path, web, 1200, 800, touch=False) as page,
    ):
        await page.wait_for("Your name at the table")
        size = await page.size()
        assert size["font"] == 16 and size["bar"] == 0 and not size["turn"], size
        assert await page.keyboard_mode() == "text"


async def test_a_phone_held_sideways_fits_taps_and_asks_for_a_keyboard_only_to_type(tmp_path):
    async with web_host(tmp_path) as (host, web), phone(tmp_path, web) as page:
        await page.wait_for("Your name at the table")
        # 80x24 fits above the key bar, at a font that can be read.
        size = await page.size()
        assert size["cols"] >= MIN_COLS and size["rows"] >= MIN_ROWS, size
        assert size["font"] >= 9 and not size["turn"] and size["bar"] > 0, size
        # The app's first size (the socket's address) is the fitted one, not a 16 px guess.
        assert f"width={size['cols']}&height={size['rows']}" in size["socket"]
        await wait_until_page(page, "document.body.classList.contains('-typing')")
        assert await page.keyboard_mode() == "text"  # the name field: the keyboard may come
        await sign_in(page, "Tapper")
        await wait_until(lambda: any(p.name == "Tapper" for p in host.players.values()))
        await wait_until_page(page, "!document.body.classList.contains('-typing')")
        assert await page.keyboard_mode() == "none"  # the lobby: a tap brings no keyboard
        await page.tap_text("New table", last=True)  # the footer's key, tapped
        await page.wait_for("Create")
        assert await page.keyboard_mode() == "none"
        await page.tap_key("escape")  # the key bar's Escape closes the form
        await wait_for_footer(page, "New table")
        await page.tap_key("question_mark")  # its ? opens the help, Esc closes it
        await wait_for_footer(page, "Close help")
        await page.tap_key("escape")
        await wait_for_footer(page, "New table")


# The dice game's boxes as its card lists them (each name's first line on the screen is its).
BOXES = (
    "Aces",
    "Deuces",
    "Treys",
    "Fours",
    "Fives",
    "Sixes",
    "2 Pair Same Color",
    "3 of a Kind",
    "Straight",
    "Flush",
    "Full House",
    "Full House Same Color",
    "4 of a Kind",
    "Yarborough",
    "Kismet",
)


async def tap_box(page: Phone, name: str) -> None:
    """Tap the scorecard's line for the box `name` (its name starts the line)."""
    lines = await page.screen()
    (row,) = [
        row
        for row, line in enumerate(lines)
        if line.startswith(name) and line[len(name) :].startswith("  ")
    ]
    await page.tap_cell(len(name) // 2, row)


def footer(lines: list[str]) -> str:
    """The screen's footer (its last line with words): the keys it offers now."""
    return next((line for line in reversed(lines) if line.strip()), "")


async def wait_until_shown(page: Phone, condition, timeout: float = 60.0) -> None:
    """Wait until `condition(lines)` holds of what the phone shows."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition(lines := await page.screen()):
        if asyncio.get_running_loop().time() > deadline:
            shown = "\n".join(lines)
            raise AssertionError(f"the phone never showed what was waited for; it shows:\n{shown}")
        await asyncio.sleep(0.05)


async def wait_for_footer(page: Phone, words: str, present: bool = True) -> None:
    await wait_until_shown(page, lambda lines: (words in footer(lines)) == present)


async def test_a_solo_dice_game_is_played_to_its_end_by_taps_alone(tmp_path):
    async with web_host(tmp_path) as (host, web), phone(tmp_path, web) as page:
        await sign_in(page, "Solo")
        await page.tap_text("New table", last=True)  # the form: dice, no bots, as it opens
        await page.tap_text("Create", last=True)
        await page.tap_text("Start", last=True)
        (solo,) = [p for p in host.players.values() if p.name == "Solo"]
        await wait_until(lambda: solo.table is not None and solo.table.state == PLAYING)
        table = solo.table
        # The quickest game: each turn the Throw button under the dice, then a free box
        # tapped twice (chosen, then scored), the boxes in the card's order. The first turn
        # also holds a die and releases it, by tapping it.
        for turn, box in enumerate(BOXES):
            await wait_for_footer(page, "Throw")
            await wait_for_footer(page, "Score", present=False)
            await page.tap_text("Throw")  # the button, above the footer
            await wait_for_footer(page, "Score")
            if turn == 0:
                await page.tap_text("╭─────╮")  # the first die: held
                await page.wait_for("HELD")
                await page.tap_text("┏━━━━━┓")  # and released
                await wait_until_shown(
                    page, lambda lines: not any("HELD" in line for line in lines)
                )
            events = len(table.events)
            await tap_box(page, box)
            await tap_box(page, box)

            def scored(since: int = events) -> bool:
                return any(event["action"].get("type") == "score" for event in table.events[since:])

            await wait_until(scored)
        await wait_until(lambda: table.state != PLAYING, timeout=60)
        await page.wait_for("Play again")
        await page.screenshot(tmp_path / "phone-dice.png")


async def test_a_race_round_is_played_by_taps_alone(tmp_path):
    async with (
        web_host(tmp_path) as (host, web),
        connected(host, "Bo") as bo,
        phone(tmp_path, web) as page,
    ):
        await sign_in(page, "Racer")
        # (Rounds of a minute: each ends when both have acted, and a machine slow enough
        # to let a 10 s round run out meanwhile made the test wait for a round gone by.)
        await bo.create_table("race", {"countdown_ms": 1000, "round_limit_ms": 60_000})
        await page.wait_for("race")
        await page.tap_text("Sit", last=True)  # at the table the lobby has chosen
        (racer,) = [p for p in host.players.values() if p.name == "Racer"]
        await wait_until(lambda: racer.table is not None)
        await page.tap_text("Ready", last=True)
        await bo.ready()
        await wait_until(lambda: all(seat.ready for seat in racer.table.seats if not seat.bot))
        await bo.start()
        await wait_until(lambda: racer.table.state == PLAYING)
        game = racer.table.game
        assert game is not None
        table = racer.table

        def acted(round_: int) -> dict[int, str]:
            """Who grabbed or passed in round `round_` (by seat), as the host logged it."""
            return {
                event["seat"]: event["action"]["type"]
                for event in table.events[starts[round_] :]
                if (event.get("action") or {}).get("type") in ("grab", "pass")
            }

        # Round by round until the dice show a card on the table: the phone taps Pass (the
        # button under the cards) while none does, then grabs that card by tapping it. Bo's
        # client passes each round, so each ends as soon as the phone has acted.
        starts: dict[int, int] = {}
        for round_ in range(1, 9):
            await wait_until(lambda: game.round == round_ and game.phase == "grabbing", timeout=60)
            await page.wait_for("GRAB!")
            starts[round_] = len(table.events)
            await looked_at_the_dice(bo)
            await bo.act({"type": "pass"})
            targets = [
                card["pos"]
                for card in game.view(None)["circle"]
                if card is not None and card["target"]
            ]
            if targets:
                label = f"┌{'abcdefghijk'[targets[0]]}─"
                lines = await page.screen()
                (col, row) = next(
                    (line.find(label), row) for row, line in enumerate(lines) if label in line
                )
                await page.tap_cell(col + 3, row + 1)  # the card's number, under its letter
                await wait_until(lambda: "grab" in acted(round_).values())
                break
            await page.tap_text("Pass")
            await wait_until(lambda: "pass" in acted(round_).values() and len(acted(round_)) == 2)
            await page.wait_for("Racer passes")
        else:
            pytest.fail("eight rounds and the dice never showed a card on the table")
        await wait_until(lambda: game.round > round_ or game.phase != "grabbing")
        await page.wait_for("Racer takes")
        await page.screenshot(tmp_path / "phone-race.png")


async def wait_until_page(page: Phone, expression: str, timeout: float = 30.0) -> None:
    """Wait until the page's JavaScript `expression` is true."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await page.evaluate(expression):
        assert asyncio.get_running_loop().time() < deadline, f"never: {expression}"
        await asyncio.sleep(0.05)
