"""The move log carries the game's history: a late spectator sees what happened before they
came, and a resync (the host's whole log again) adds no line twice."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import make_app, settle, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


def log_lines(app) -> list[str]:
    return [str(line.text) for line in app.screen.query_one("#movelog").lines]


async def play_a_turn(other) -> None:
    """Bo throws twice and scores the best box the engine offers."""
    await other.act({"type": "roll", "hold": []})
    await other.act({"type": "roll", "hold": [0, 1]})
    preview = other.game.view(0)["preview"]
    box = max((b for b in preview if preview[b]["legal"]), key=lambda b: preview[b]["points"])
    await other.act({"type": "score", "box": box})


async def watch_bos_game(host, other, pilot, app, client) -> None:
    await wait_for(pilot, lambda: client.state == "connected", what="connection")
    await other.create_table("dice", {})
    await other.start()
    await play_a_turn(other)
    await play_a_turn(other)
    await pilot.press("r")  # refresh the table list
    await wait_for(pilot, lambda: bool(app.screen.tables), what="the table list")
    await pilot.press("s")  # watch
    await wait_for(
        pilot,
        lambda: getattr(app.screen, "RULESET", None) == "dice" and app.screen.is_mounted,
        what="the dice screen",
    )
    await settle(pilot, client)


async def test_a_late_spectator_sees_the_moves_made_before(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Cy")
        async with app.run_test(size=(80, 24)) as pilot:
            await watch_bos_game(host, other, pilot, app, client)
            lines = log_lines(app)
            assert sum("Bo throws" in line for line in lines) == 4, lines
            assert (
                sum(
                    line.startswith("Bo scores") or line.startswith("Bo scratches")
                    for line in lines
                )
                == 2
            )
            # The game goes on: each new move is one more line, not a repeat of the past.
            await other.act({"type": "roll", "hold": []})
            await wait_for(
                pilot,
                lambda: sum("Bo throws" in line for line in log_lines(app)) >= 5,
                what="the next throw in the log",
            )
            await settle(pilot, client)
            assert sum("Bo throws" in line for line in log_lines(app)) == 5
            await client.close()


async def test_moves_missed_in_a_gap_come_back_once_with_the_resync(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Cy")
        async with app.run_test(size=(80, 24)) as pilot:
            await watch_bos_game(host, other, pilot, app, client)
            before = log_lines(app)
            dropped, games_seen = [], []
            client_dispatch = client._dispatch

            def lossy(message):
                """Lose the next event on the way, as a bad link would; see the resync."""
                if message.get("type") == "event" and not dropped:
                    dropped.append(message)
                    return
                if message.get("type") == "game":
                    games_seen.append(message)
                client_dispatch(message)

            client._dispatch = lossy
            await other.act({"type": "roll", "hold": []})  # lost on the way to Cy
            await other.act({"type": "roll", "hold": [0]})  # a gap: Cy asks the host again
            await wait_for(pilot, lambda: bool(games_seen), what="the host's whole log")
            await wait_for(
                pilot, lambda: len(log_lines(app)) >= len(before) + 2, what="the missed throws"
            )
            await settle(pilot, client)
            after = log_lines(app)
            assert after[: len(before)] == before, "the history is not written again"
            new = after[len(before) :]
            assert len(new) == 2 and all(line.startswith("Bo throws") for line in new), new
            # A resync with nothing missed adds nothing.
            games_seen.clear()
            client._ask_resync()  # (as the client asks on a gap or a failed digest)
            await wait_for(pilot, lambda: bool(games_seen), what="the host's log again")
            await settle(pilot, client)
            assert log_lines(app) == after
            await client.close()
