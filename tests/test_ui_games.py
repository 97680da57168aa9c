"""The race and knock screens through a real host on loopback, driven by key presses.

The games are created by the test's own second client (so the test controls when that player
acts); the app under test is the other player and acts only through its keys.
"""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import (
    first_race_round,
    look_at_the_dice,
    make_app,
    pass_every_round,
    seat_both,
    wait_for,
)

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def test_race_grab_by_one_key_lands_on_that_card(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            game = await first_race_round(pilot, app, client, other, 20000)
            view = game.view(1)
            # Choose a place that shows a target if there is one (else any card).
            target = next(
                (c for c in view["circle"] if c and c["number"] in view["targets"]),
                next(c for c in view["circle"] if c),
            )
            pos = target["pos"]
            await look_at_the_dice(pilot, client)
            await pilot.press("abcdefghijk"[pos])
            await wait_for(
                pilot,
                lambda: (
                    any(g["seat"] == 1 for g in game.view(1)["grabs"]) or game.phase != "grabbing"
                ),
                5,
                "the grab",
            )
            grab = (
                next(g for g in game.view(1)["grabs"] if g["seat"] == 1)
                if game.phase == "grabbing"
                else next(r for r in game.view(1)["last_round"]["reveals"] if r["seat"] == 1)
            )
            assert grab["pos"] == pos and grab["card"] == target["id"]
            # The grab shows on the card, in the grabber's name (while the round lasts: Bo
            # does not act, so only Ana's grab of the last match could end it).
            await wait_for(
                pilot,
                lambda: (
                    game.phase != "grabbing"
                    or "Ana" in str(app.screen.query_one("#circle").content)
                ),
                what="Ana on the card",
            )
            await client.close()


async def test_knock_by_card_key_on_anothers_throw(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "knock", {"knock_window_ms": 0})
            game = client.game
            # The pre-lay: Ana picks 12 (6 chips) by key and confirms with enter; Bo none.
            await pilot.press("equals_sign")
            await pilot.press("enter")
            await other.prelay([])
            await wait_for(pilot, lambda: game.phase == "play", 5, "the pre-lays")
            assert 12 not in [c["number"] for c in game.view(1)["players"][1]["open"]]
            # Play until Bo throws; then Ana knocks with a card of hers by its key.
            for _ in range(40):
                await wait_for(
                    pilot, lambda: game.view(1)["stage"] == "roll", what="a throw to make"
                )
                if game.view(1)["turn"] == 0:
                    await other.act({"type": "roll"})
                    break
                await pilot.press("r")
                await wait_for(pilot, lambda: game.view(1)["stage"] == "decide", 5, "Ana's throw")
                await pilot.press("p")
                await wait_for(pilot, lambda: game.view(1)["turn"] == 0, 5, "Bo's turn")
            await wait_for(
                pilot, lambda: (game.view(1)["roll"] or {}).get("roller") == 0, 5, "Bo's throw"
            )
            roll = game.view(1)["roll"]
            mine = [
                c["number"]
                for c in game.view(1)["players"][1]["open"]
                if c["number"] in roll["targets"]
            ]
            await look_at_the_dice(pilot, client)
            if not mine:
                # No match for Ana on this throw: a knock without a card (k) is then judged too.
                await pilot.press("k")
            else:
                key = {10: "0", 11: "minus", 12: "equals_sign"}.get(mine[0], str(mine[0]))
                await pilot.press(key)
            await wait_for(
                pilot, lambda: 1 in (game.view(1)["roll"] or {}).get("knocked", []), 5, "the knock"
            )
            knock = next(k for k in game.view(1)["roll"]["knocks"] if k["seat"] == 1)
            assert knock["judgement"] in ("good", "wrong", "too_slow")
            await wait_for(
                pilot,
                lambda: any(
                    "Ana knocks" in line.text for line in app.screen.query_one("#movelog").lines
                ),
                what="the knock in the move log",
            )
            await client.close()


@pytest.mark.timeout(120)
async def test_a_race_game_in_the_tui_against_a_bot_ends_verified(tmp_path):
    from kismet_tui.bots.runner import bot_factory
    from tests.netutil import FAST

    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await client.create_table("race", FAST["race"], bots=["hard"])
            await wait_for(pilot, lambda: client.table["seats"][1]["connected"], what="the bot")
            await client.start()
            # On the stack, not necessarily on top: with two players the pile is small, and
            # under load a whole game can be over (its end box on top) by the first look.
            await wait_for(
                pilot,
                lambda: (
                    client.game is not None
                    and any(getattr(s, "RULESET", None) == "race" for s in app.screen_stack)
                ),
                what="the race screen",
            )
            game = client.game
            await pass_every_round(pilot, game)
            await wait_for(
                pilot,
                lambda: (
                    type(app.screen).__name__ == "EndScreen"
                    and len(app.screen.query("#fairness")) > 0
                ),
                what="the end screen",
            )
            await wait_for(
                pilot,
                lambda: "Verified" in str(app.screen.query_one("#fairness").content),
                what="the verified line",
            )
            await client.close()
