"""A new user's first hint starts the optimal table's build in the background: the status bar
shows its progress in words, hints say "(estimate)" meanwhile, and the moment the table is
ready the hints are exact, without any other command.

The build's child process is a stand-in here (it reports 40 %, waits for the test's go, then
puts the session's real table in place): the real child is tested in test_solver_table.py;
this test is about what the player sees."""

from __future__ import annotations

import sys
import textwrap

import pytest

from kismet_tui.solver import background, table
from kismet_tui.widgets.status import LOCAL, StatusBar
from tests.netutil import running_host
from tests.uiutil import solo_dice, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]

STAND_IN = textwrap.dedent("""
    import os, shutil, sys, time
    source, cache, go = sys.argv[1:]
    print("progress 40 100", flush=True)
    while not os.path.exists(go):
        time.sleep(0.02)
    name = os.path.basename(source)
    shutil.copy(source[:-4] + ".json", os.path.join(cache, name[:-4] + ".json"))
    shutil.copy(source, os.path.join(cache, name))
    print("ready", os.path.join(cache, name), flush=True)
""")


async def test_first_hint_builds_the_table_shows_progress_then_hints_are_exact(
    tmp_path, monkeypatch, optimal_cache
):
    source, _ = optimal_cache
    cache, go = tmp_path / "cache", tmp_path / "go"
    cache.mkdir()
    monkeypatch.setenv("KISMET_SOLVER_CACHE", str(cache))
    monkeypatch.setenv(background.AUTOBUILD_ENV, "1")
    monkeypatch.setattr(
        background,
        "build_command",
        lambda: [sys.executable, "-c", STAND_IN, str(source), str(cache), str(go)],
    )
    from kismet_tui.screens import dice as dice_screen

    async with running_host(tmp_path / "host") as host:
        # As `kismet` does: a host on this computer (the status bar's words fit then).
        async with solo_dice(host, address=LOCAL) as (app, pilot, client):
            await pilot.press("r")
            await wait_for(pilot, lambda: client.game.view(0)["rolls_used"] == 1, what="a throw")
            await wait_for(pilot, lambda: dice_screen._advisor() is not None, 30, "the advisor")
            screen = app.screen

            def hints() -> list[str]:
                return [
                    line.text for line in screen.query_one("#movelog").lines if "Hint" in line.text
                ]

            def status() -> str:
                return screen.query_one(StatusBar).shown

            await pilot.press("h")
            await wait_for(pilot, lambda: len(hints()) == 1, 10, "the first hint")
            assert hints()[0].startswith("Hint (estimate): ")
            # At 80 columns in short words, so that the turn's clock [D31] is not cut for them
            # (the place name gives way to the clock, never to the build's words:
            # tests/test_ui_look.py).
            await wait_for(
                pilot,
                lambda: "Dice bot: 40 %" in status(),
                10,
                "the build's progress in the status bar",
            )
            assert "Your turn: " in status() and " left" in status() and len(status()) <= 80, (
                status()
            )
            go.write_text("go")
            build = background.current(table.cache_path())
            await wait_for(pilot, lambda: build.state == "ready", 30, "the table")
            await wait_for(
                pilot,
                lambda: "The perfect dice bot is ready" in status() or "Dice bot ready" in status(),
                5,
                "ready",
            )  # (short beside the clock)
            await pilot.press("h")
            await wait_for(pilot, lambda: len(hints()) == 2, 10, "the second hint")
            assert hints()[1].startswith("Hint: ")
            await client.close()
