"""The knock screen's joker throw: the target card's key, then a second card's key, send one
lay with `extra`; enter instead lays the target card alone.

Joker throws come from chance, so this test drives the screen over a local engine with
scripted dice (no network); the action the screen sends is checked, then applied to the
engine to show it is legal.
"""

from __future__ import annotations

import asyncio

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.messages import host_message
from kismet_tui.rules import ScriptedRNG, new_game
from kismet_tui.rules.knock import prelay_commitment
from tests.test_ui_dice import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


class ScriptedSeat:
    """Stands where the network client stands: a local replica, seat 0, and a record of the
    actions the screen sent (each is also applied, as the host would stamp it)."""

    state = "connected"
    live = True
    table = None
    client_id = 1
    verification = None

    def __init__(self, game, header):
        self.game, self.header, self.seat = game, header, 0
        self.sent: list[dict] = []
        self.t = 1000

    def host_time_ms(self) -> int:
        return self.t

    def applied_events(self) -> list[dict]:
        return []  # the screen's history starts with the test's own events

    def applied_notes(self) -> list[list[dict]]:
        return []

    def act_nowait(self, action: dict) -> None:
        self.sent.append(action)

    def messages(self):
        async def never():
            await asyncio.Event().wait()
            yield {}

        return never()

    async def _nothing(self, *args, **kwargs) -> None:
        return None

    # The other requests (the lobby asks for the tables): taken, and nothing happens.
    act = chat = ready = start = leave = list_tables = prelay = join_table = _nothing
    create_table = remove = _nothing


def joker_game():
    """Two seats, empty pre-lays, seat 0 to roll first and about to throw 4 4 4."""
    for seed in range(100):
        game = new_game("knock", 2, seed, rng=ScriptedRNG([4, 4, 4], seed=seed))
        for seat in (0, 1):
            game.apply(seat, {"type": "prelay", "commit": prelay_commitment([], "00")}, 10)
        for seat in (0, 1):
            game.apply(seat, {"type": "reveal", "cards": [], "salt": "00"}, 20)
        if game.view(0)["turn"] == 0:
            return game, seed
    raise AssertionError("no seed lets seat 0 roll first")


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
