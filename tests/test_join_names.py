"""kismet-join when the host refuses its name as taken (tests/test_names.py has the host's
side): `--ask-name` shows the host's words and asks again; `--name X` says them and exits 1."""

from __future__ import annotations

import asyncio
import os
import pty
import sys

import pytest
from textual.widgets import Input, Static

from kismet_tui.app import KismetApp
from kismet_tui.cli import join_by_name
from kismet_tui.net import Client
from kismet_tui.screens.ask_name import AskNameScreen
from protocol.text import clean_text
from tests.netutil import ROOT, connected, running_host
from tests.uiutil import wait_for

pytestmark = [pytest.mark.network, pytest.mark.timeout(90)]

NORA_TAKEN = "Somebody called nora is already at this host: please pick another name."


@pytest.mark.ui
async def test_ask_name_shows_the_hosts_words_and_asks_again(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "nora"):
        client = Client(reconnect=False)
        app = KismetApp(
            client,
            address=f"127.0.0.1:{host.port}",
            on_quit=client.close,
            connect=lambda: join_by_name(
                app,
                client,
                "127.0.0.1",
                host.port,
                "",
                ask=True,
                fresh=True,
                refused=[],
                seats=tmp_path / "seats.json",
            ),
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                pilot, lambda: isinstance(app.screen, AskNameScreen), what="the question"
            )
            await pilot.press(*"NORA", "enter")
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, AskNameScreen) and app.screen.problem == NORA_TAKEN,
                what="the host's words",
            )
            problem = app.screen.query_one("#ask-problem", Static)
            assert str(problem.content) == NORA_TAKEN
            app.screen.query_one(Input).value = ""
            await pilot.press(*"zoe", "enter")
            await wait_for(pilot, lambda: client.state == "connected", what="the connection")
            assert client.name == "zoe"
            assert sorted(p.name for p in host.players.values()) == ["nora", "zoe"]
            await client.close()


async def test_a_taken_name_makes_kismet_join_say_so_and_exit_1(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "nora"):
        # A real terminal for the app (it draws on it), and the words on stderr.
        leader, follower = pty.openpty()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                "from kismet_tui.cli import join_main; raise SystemExit(join_main())",
                "--name",
                "NORA",
                f"127.0.0.1:{host.port}",
                stdin=follower,
                stdout=follower,
                stderr=asyncio.subprocess.PIPE,
                cwd=ROOT,
                env=dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm-256color"),
            )
            os.close(follower)
            follower = -1
            drain = asyncio.get_running_loop().run_in_executor(None, read_all, leader)
            _, errors = await asyncio.wait_for(proc.communicate(), 60)
        finally:
            if follower >= 0:
                os.close(follower)
        os.close(leader)
        await drain
        assert proc.returncode == 1
        # Textual draws on stderr too: the words come last, once it has put the terminal back.
        assert clean_text(errors.decode()).endswith(
            f"kismet-join: {NORA_TAKEN} (--name picks another)"
        )
        assert [p.name for p in host.players.values()] == ["nora"]


def read_all(fd: int) -> None:
    """Read the app's screen until its terminal closes (so it never blocks on a full pty)."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
