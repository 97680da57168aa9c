"""`kismet` draws its first screen without the heavy modules: they load when used (issue 23).

A fresh interpreter runs the real `kismet` (kismet_tui.cli.local_main: its embedded host, its
client, the lobby and the new-table form), headless at 80x24. The app's warm-up is the first
thing that runs once that form is drawn (KismetApp.on_connection_changed), so the script puts
itself there: it notes which screen is up and every module imported so far, runs the real
warm-up, and quits the way ctrl+q does. None of the modules below may be among them; benchmarks/startup.py measures what
that is worth.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What the first screen must not pay for, and where each one is wanted instead.
HEAVY = {
    "numpy": "the hard bot and the hints (the solver's tables)",
    "kismet_tui.solver.states": "the solver, behind the dice bots and the hints",
    "kismet_tui.bots.dice_levels": "the dice bots, made when a dice game starts",
    "asyncssh": "the ssh door, behind `o` Invite",
    "zeroconf": "the LAN announcement, behind `o` Invite",
    "textual_serve": "the browser door, behind `o` Invite",
    "aiohttp": "the browser door, behind `o` Invite",
    "cryptography": "signing a finished game, and the ssh door",
    # (sqlite3 itself, 3 ms, is on the way: the host's records index opens as the host
    # starts, so the solo app's high scores and pruning are right from its first game.)
    "openskill": "rating a finished game (the records)",
    "markdown_it": "the help screen (rich's Markdown)",
}

FIRST_SCREEN = """
import json, sys
from kismet_tui import cli
from kismet_tui.app import KismetApp

seen = {}
run = KismetApp.run
warm_up = KismetApp.warm_up

def run_headless(self, *args, **kwargs):
    return run(self, headless=True, size=(80, 24))

async def at_first_screen(self):
    seen["screen"] = type(self.screen).__name__
    seen["modules"] = sorted(sys.modules)
    await warm_up(self).wait()  # then what the warm-up is there for
    seen["warmed"] = sorted(sys.modules)
    await self.action_quit()

KismetApp.run = run_headless
KismetApp.warm_up = at_first_screen
code = cli.local_main(["--state-dir", sys.argv[1], "--name", "Ana"])
print(json.dumps({"code": code, **seen}))
"""


def modules_at_first_screen(state_dir: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", FIRST_SCREEN, str(state_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(90)
def test_kismet_draws_its_first_screen_without_the_heavy_modules(tmp_path):
    seen = modules_at_first_screen(tmp_path / "solo")
    assert seen["code"] == 0
    assert seen["screen"] == "NewTableScreen"  # the form is up: the first screen is drawn
    loaded = set(seen["modules"])
    assert "server.host" in loaded and "kismet_tui.screens.new_table" in loaded
    early = {name: why for name, why in HEAVY.items() if name in loaded}
    assert not early, f"imported before kismet's first screen (wanted only for): {early}"
    # The warm-up, right after, loads the hints' advisor (with numpy) and the help screen, so
    # neither the first dice screen nor the first `?` waits for them.
    warmed = set(seen["warmed"])
    assert {"kismet_tui.bots.advisor", "numpy", "kismet_tui.screens.help"} <= warmed
