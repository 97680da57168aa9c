"""The knock screen's joker throw: the target card's key, then a second card's key, send one
lay with `extra`; enter instead lays the target card alone.

Joker throws come from chance, so this test drives the screen over a local engine with
scripted dice (no network); the action the screen sends is checked, then applied to the
engine to show it is legal.
"""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.messages import host_message
from tests.uiutil import ScriptedSeat, joker_game, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


@pytest.mark.parametrize(
    "second_key, expected",
    [("5", {"type": "lay", "card": 8, "extra": 5}), ("enter", {"type": "lay", "card": 8})],
)
async def test_joker_throw_lays_the_target_and_a_second_card(second_key, expected):
    game, seed = joker_game()
    client = ScriptedSeat(game, {"ruleset": "knock", "seats": ["Ana", "Bo"], "seed": seed, "t0": 0})
    app = KismetApp(client)
    async with app.run_test(size=(80, 24)) as pilot:
        app.route()
        await wait_for(pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="knock")
        event = {"seq": 5, "t": 30, "seat": 0, "action": {"type": "roll"}}
        game.apply(0, {"type": "roll"}, 30)
        assert game.view(0)["roll"]["joker"] and game.view(0)["roll"]["targets"] == [8]
        app.post_message(host_message({"type": "event", **event}))
        await pilot.pause()  # the screen has handled the event
        await pilot.press("8")
        await pilot.pause()
        assert client.sent == [], "the target card alone waits for the second card"
        assert "Joker!" in str(app.screen.query_one("#say").content)
        await pilot.press(second_key)
        await wait_for(pilot, lambda: bool(client.sent), what="the lay")
        assert client.sent == [expected]
        game.apply(0, expected, 40)  # the engine takes it as sent
        assert {c["number"] for c in game.view(0)["players"][0]["open"]}.isdisjoint(
            [expected["card"], expected.get("extra")]
        )


async def test_the_target_pressed_again_keeps_the_first_pick_and_says_so_once():
    """Pressing the joker's target card again as "one more card" is refused in words without
    cancelling the pick, and pressing it again and again does not fill the log."""
    game, seed = joker_game()
    client = ScriptedSeat(game, {"ruleset": "knock", "seats": ["Ana", "Bo"], "seed": seed, "t0": 0})
    app = KismetApp(client)
    async with app.run_test(size=(80, 24)) as pilot:
        app.route()
        await wait_for(pilot, lambda: getattr(app.screen, "RULESET", None) == "knock", what="knock")
        game.apply(0, {"type": "roll"}, 30)
        app.post_message(
            host_message(
                {"type": "event", "seq": 5, "t": 30, "seat": 0, "action": {"type": "roll"}}
            )
        )
        await pilot.pause()
        await pilot.press("8")
        await pilot.pause()
        screen = app.screen
        for _ in range(3):
            await pilot.press("8")
            await pilot.pause()
        assert client.sent == [], "the same card again is not sent (the host would refuse it)"
        assert screen.joker_first == 8, "the first pick stays"
        await wait_for(
            pilot,
            lambda: any("goes down already" in text.plain for text in screen.movelog().said),
            what="the refusal in the log",
        )
        said = [text.plain for text in screen.movelog().said if "goes down already" in text.plain]
        assert len(said) == 1, said
        await pilot.press("5")
        await wait_for(pilot, lambda: bool(client.sent), what="the lay")
        assert client.sent == [{"type": "lay", "card": 8, "extra": 5}]
