"""No colour at all: under NO_COLOR (https://no-color.org) and on a monochrome terminal
(TERM=xterm-mono) the app sends no colour codes, and the dice game is still played to a
scored box through a real host on loopback.

What "sent" means here: the screen is rendered exactly as the app's driver writes it (the
compositor's full update through a truecolour console), and every SGR code in it is read.
"""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from rich.console import Console

from kismet_tui.widgets.colours import colourless_terminal
from tests.netutil import running_host
from tests.uiutil import solo_dice, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]

SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def colour_codes(sent: str) -> list[str]:
    """The SGR parameters in `sent` that set a colour (30-38, 40-48, 90-97, 100-107); the
    defaults 39 and 49 and the attributes (bold, reverse, ...) are not colours."""
    found = []
    for match in SGR.finditer(sent):
        params = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", match.group(1))]
        index = 0
        while index < len(params):
            code = params[index]
            if code in (38, 48):
                found.append(match.group(0))
                index += 3 if params[index + 1 : index + 2] == [5] else 5
                continue
            if 30 <= code <= 37 or 40 <= code <= 47 or 90 <= code <= 97 or 100 <= code <= 107:
                found.append(match.group(0))
            index += 1
    return found


def sent_to_terminal(app) -> str:
    """The whole screen as the driver would write it to the terminal."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    out = io.StringIO()
    console = Console(
        file=out,
        color_system="truecolor",
        force_terminal=True,
        legacy_windows=False,
        width=app.size.width,
        height=app.size.height,
    )
    console.print(update, end="")
    return out.getvalue()


def test_colour_codes_are_found():
    """The check itself: a red pip and a 256-colour background are colours, bold is not."""
    assert colour_codes("\x1b[1;31mx\x1b[0m\x1b[48;5;7my\x1b[1m\x1b[39;49m") == [
        "\x1b[1;31m",
        "\x1b[48;5;7m",
    ]


@pytest.mark.parametrize(
    "environ, colourless",
    [
        ({"TERM": "xterm-256color"}, False),
        ({"TERM": "xterm-mono"}, True),
        ({"TERM": "vt100-m"}, True),
        ({"TERM": "xterm-256color", "NO_COLOR": "1"}, True),
        ({"TERM": "xterm-256color", "NO_COLOR": ""}, False),  # the convention: empty means unset
    ],
)
def test_which_terminals_get_no_colour(environ, colourless):
    assert colourless_terminal(environ) is colourless


@pytest.mark.parametrize("variable, value", [("NO_COLOR", "1"), ("TERM", "xterm-mono")])
async def test_dice_without_colour_is_played_and_sends_no_colour(
    tmp_path, monkeypatch, variable, value
):
    monkeypatch.setenv(variable, value)
    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            game = client.game
            assert colour_codes(sent_to_terminal(app)) == []
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 1, what="the first throw")
            await pilot.press("1", "r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 2, what="the second throw")
            await pilot.press("enter")
            await wait_for(
                pilot,
                lambda: any(v is not None for v in game.view(0)["cards"][0].values()),
                what="a scored box",
            )
            await pilot.pause()
            assert colour_codes(sent_to_terminal(app)) == []
            assert type(app.screen).__name__ == "DiceScreen"


@pytest.mark.parametrize("variable, value", [("NO_COLOR", "1"), ("TERM", "xterm-mono")])
async def test_real_kismet_in_a_terminal_without_colour(monkeypatch, tmp_path, variable, value):
    """The real `kismet` on a pty: a dice game opened from the start-up form and thrown,
    with not one colour code in all it wrote. Each run plays from a solo folder of its own:
    a game another run left unfinished would be offered instead of the form."""
    import fcntl
    import os
    import pty
    import signal
    import struct
    import sys
    import termios

    import pyte

    env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    env[variable] = value
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command, as a player starts it
        os.execve(
            sys.executable,
            [
                sys.executable,
                "-c",
                "import sys; from kismet_tui.cli import local_main; local_main(sys.argv[1:])",
                "--state-dir",
                str(tmp_path / "solo"),
            ],
            env,
        )
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    sent = bytearray()
    loop = asyncio.get_running_loop()
    arrived = asyncio.Event()

    closed = []

    def readable() -> None:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:  # the terminal's other end is gone: kismet ended
            closed.append(True)
            loop.remove_reader(fd)
        sent.extend(data)
        stream.feed(data)
        arrived.set()

    async def shows(words: str) -> None:
        deadline = loop.time() + 60
        while not any(words in line for line in screen.display):
            assert not closed and loop.time() < deadline, (
                f"never showed {words!r}: {screen.display}"
            )
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), timeout=deadline - loop.time())

    loop.add_reader(fd, readable)
    try:
        await shows("Play a game now")
        os.write(fd, b"\r")  # dice, one bot: the game starts
        await shows("throws left")
        os.write(fd, b"r")
        await shows("(throw 1)")  # the move log has the throw
        assert any(word in line for line in screen.display for word in ("black", "red", "green"))
        assert os.waitpid(pid, os.WNOHANG) == (0, 0), "kismet ended"
        assert colour_codes(sent.decode("utf-8", "replace")) == []
    finally:
        loop.remove_reader(fd)
        os.kill(pid, signal.SIGTERM)
        for _ in range(200):  # gone within a few seconds (a condition, not a fixed sleep)
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                break
            await asyncio.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


async def test_the_dice_lines_survive_textuals_own_monochrome_filter():
    """Textual's Monochrome filter (its own answer to NO_COLOR, which a Textual without this
    app's choice would use) broke on the unstyled cells Lines handed out."""
    from textual.color import Color
    from textual.filter import Monochrome

    from kismet_tui.app import KismetApp
    from kismet_tui.widgets.lines import Lines
    from tests import uiutil as snaps

    # At the end the turn line is one line in a widget two high: the row under it is blank.
    app = KismetApp(
        snaps.ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"]), address="this computer"
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("EndScreen")(pilot)
        board = next(screen for screen in app.screen_stack if type(screen).__name__ == "DiceScreen")
        for lines in board.query(Lines):
            for y in range(lines.size.height):
                Monochrome().apply(list(lines.render_line(y)), Color(0, 0, 0))
