"""kismet-replay: a saved log plays back on the game screens, step by step and at speed."""

from __future__ import annotations

import pytest

from kismet_tui.replay import ReplayApp
from protocol.gamelog import read_log_full
from tests.uiutil import wait_for, write_log

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


async def test_replay_steps_and_plays_to_the_end(tmp_path):
    path = tmp_path / "game.kismet"
    write_log(
        path,
        "race",
        ["Ana", "Bo"],
        b"replay-seed",
        {"countdown_ms": 200, "round_limit_ms": 800, "reveal_ms": 100},
    )
    header, events, end = read_log_full(path)
    app = ReplayApp(header, events, speed=16, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "race", what="the race screen"
        )
        at = app.source.index
        assert at == 0
        await pilot.press("n", "n", "n")  # three single steps
        assert app.source.index == at + 3
        assert app.source.game.view(None)["round"] >= 0
        # The screen draws the replica: the status line counts the events.
        await wait_for(
            pilot,
            lambda: (
                f"{at + 3}/{len(events)} events" in str(app.screen.query_one("StatusBar").content)
            ),
            what="the event count in the status line",
        )
        await pilot.press("space")  # play on at 16x to the end
        await wait_for(pilot, lambda: app.source.done, 40, "the end of the log")
        assert app.source.game.result() == end["result"]
        # Pushed is not yet composed: wait for the ranking itself.
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen" and len(app.screen.query("#ranking")) > 0
            ),
            5,
            "the end screen",
        )
        ranking = str(app.screen.query_one("#ranking").content)
        assert "Ana" in ranking and "Bo" in ranking


async def test_knock_end_screen_ranks_the_fewest_minus_points_first(tmp_path):
    path = tmp_path / "knock.kismet"
    write_log(path, "knock", ["Ana", "Bo"], b"end-seed", {})
    header, events, end = read_log_full(path)
    minus = end["result"]["minus_points"]
    assert minus[0] != minus[1], "the seed should give a game without a tie"
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="the knock screen"
        )
        # Every step at once (as pressing "n" a few hundred times would): the game's end.
        app.publish([app.source.next_event() for _ in range(len(events))])
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen" and len(app.screen.query("#ranking")) > 0
            ),
            50,
            "the end screen",
        )
        lines = [
            line
            for line in str(app.screen.query_one("#ranking").content).splitlines()
            if ". " in line
        ]
        best, worst = sorted(range(2), key=lambda seat: minus[seat])
        names = ["Ana", "Bo"]
        assert (
            "★ 1." in lines[0]
            and names[best] in lines[0]
            and f"{minus[best]} minus points" in lines[0]
        )
        assert (
            "2." in lines[1]
            and names[worst] in lines[1]
            and f"{minus[worst]} minus points" in lines[1]
        )
        assert "-" not in lines[1].split(names[worst])[1], (
            "minus points are shown as the game counts them"
        )


async def test_replay_footer_fits_80_columns_and_space_pages_the_help(tmp_path):
    path = tmp_path / "game.kismet"
    write_log(path, "knock", ["Ana", "Bo"], b"footer-seed", {})
    header, events, end = read_log_full(path)
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="the knock screen"
        )
        await wait_for(
            pilot,
            lambda: (
                len(app.screen.query("FooterKey")) > 0
                and all(key.region.width > 0 for key in app.screen.query("FooterKey"))
            ),
            what="the footer drawn",
        )
        keys = list(app.screen.query("FooterKey"))
        assert keys and all(key.region.right <= 80 and key.region.width > 0 for key in keys), [
            (key.description, key.region) for key in keys
        ]
        assert {"Play", "Step", "End", "Help", "Quit"} <= {
            key.description for key in keys
        }  # (paused, at 0)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
        scroll = app.screen.query_one("#help-scroll")
        await pilot.press("space")
        await wait_for(pilot, lambda: scroll.scroll_y > 0, what="space to page down")
        assert app.paused, "space over the help pages it, and leaves the replay paused"
        # The end box of a replay offers neither a rematch nor the lobby.
        await pilot.press("escape")
        app.publish([app.source.next_event() for _ in range(len(events))])
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen" and len(app.screen.query("#end-keys")) > 0
            ),
            50,
            "the end screen",
        )
        words = str(app.screen.query_one("#end-keys").content)
        assert "play again" not in words and "lobby" not in words, words
        shown = {key.description for key in app.screen.query("FooterKey")}
        assert "Play again" not in shown and "Lobby" not in shown, shown


async def test_replay_steps_back_jumps_to_the_end_and_escape_leaves(tmp_path):
    path = tmp_path / "game.kismet"
    write_log(path, "knock", ["Ana", "Bo"], b"back-seed", {})
    header, events, end = read_log_full(path)
    app = ReplayApp(header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="the knock screen"
        )
        bar = app.screen.query_one("StatusBar")
        await wait_for(
            pilot,
            lambda: "‖" in str(bar.content) and "▶" not in str(bar.content),
            what="the pause sign while paused",
        )
        await pilot.press("right", "right", "right")
        assert app.source.index == 3
        await pilot.press("left")  # one back: the replica as after two events
        assert app.source.index == 2 and app.paused
        fresh = ReplayApp(header, events, paused=True).source
        fresh.rewind(2)
        after_two = fresh.game.view(None)
        assert app.source.game.view(None) == after_two
        await wait_for(
            pilot,
            lambda: (
                getattr(app.screen, "RULESET", None) == "knock"
                and f"2/{len(events)} events" in str(app.screen.query_one("StatusBar").content)
            ),
            what="the count after a step back",
        )
        await pilot.press("space")
        await wait_for(
            pilot,
            lambda: "▶" in str(app.screen.query_one("StatusBar").content),
            what="the play sign while playing",
        )
        await pilot.press("end")  # to the end, at once
        assert app.source.done and app.paused
        assert app.source.game.result() == end["result"]
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen" and len(app.screen.query("#ranking")) > 0
            ),
            20,
            "the end screen",
        )
        await pilot.press("escape")  # closes the end box, on the board
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="the board"
        )
        await wait_for(
            pilot,
            lambda: "Back" in {key.description for key in app.screen.query("FooterKey")},
            what="the step back shown at the end",
        )
        await pilot.press("left")  # and back from the end
        assert app.source.index == len(events) - 1
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="the board again"
        )
        await wait_for(
            pilot,
            lambda: (
                {"Step", "End", "Quit", "Restart"}
                <= {key.description for key in app.screen.query("FooterKey")}
            ),
            what="the keys in the footer",
        )
        keys = list(app.screen.query("FooterKey"))
        assert all(key.region.right <= 80 for key in keys), [
            (key.description, key.region) for key in keys
        ]
        await pilot.press("escape")  # leaves the replay
        await wait_for(
            pilot,
            lambda: app.return_code is not None or not app.is_running,
            what="the replay to end",
        )
