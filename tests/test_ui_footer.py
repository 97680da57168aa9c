"""The footer lists only the keys that act now, in each state of the knock game and the lobby."""

from __future__ import annotations

import pytest

from tests.netutil import connected, running_host
from tests.uiutil import footer_keys, look_at_the_dice, make_app, seat_both, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.network, pytest.mark.timeout(120)]


async def keys_when(pilot, app, condition, what: str, expect) -> dict:
    """Once `condition()` holds, wait for the footer to show what `expect(keys)` asks: the
    footer is rebuilt a moment after the message that changed the state, later on a busy
    machine. Fails naming the keys shown."""
    await wait_for(pilot, condition, what=what)
    try:
        await wait_for(pilot, lambda: expect(footer_keys(app)), what=what)
    except AssertionError:
        raise AssertionError(f"{what}: the footer shows {footer_keys(app)}") from None
    return footer_keys(app)


async def test_knock_footer_follows_the_turn(tmp_path):
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "knock", {"knock_window_ms": 0})
            await keys_when(
                pilot,
                app,
                lambda: True,
                "choosing the pre-lay",
                lambda keys: "enter" in keys and "r" not in keys and "backspace" not in keys,
            )  # nothing chosen to undo yet
            await pilot.press("enter")
            await other.prelay([])
            game = client.game
            await wait_for(pilot, lambda: game.phase == "play", what="the pre-lays")
            if game.view(1)["turn"] == 1:  # Ana throws first: play her turn
                await keys_when(
                    pilot,
                    app,
                    lambda: True,
                    "Ana's turn",
                    lambda keys: "r" in keys and "p" not in keys and "k" not in keys,
                )
                await pilot.press("r")
                await keys_when(
                    pilot,
                    app,
                    lambda: game.view(1)["stage"] == "decide",
                    "Ana's throw",
                    lambda keys: "p" in keys and "r" not in keys and "k" not in keys,
                )
                await pilot.press("p")
            await wait_for(pilot, lambda: game.view(1)["turn"] == 0, what="Bo's turn")
            await keys_when(
                pilot,
                app,
                lambda: True,
                "Bo's turn (Bo throws, not Ana)",
                lambda keys: "r" not in keys and "p" not in keys,
            )
            await other.act({"type": "roll"})
            await keys_when(
                pilot,
                app,
                lambda: (game.view(1)["roll"] or {}).get("roller") == 0,
                "Bo's throw",
                lambda keys: "k" in keys and "r" not in keys and "p" not in keys,
            )
            await look_at_the_dice(pilot, client)
            await pilot.press("k")
            await keys_when(
                pilot,
                app,
                lambda: 1 in game.view(1)["roll"]["knocked"],
                "Ana's knock (one knock per throw)",
                lambda keys: "k" not in keys,
            )
            await client.close()


async def test_lobby_offers_talk_only_at_a_table(tmp_path):
    async with running_host(tmp_path) as host:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await keys_when(
                pilot,
                app,
                lambda: client.state == "connected",
                "connection",
                lambda keys: "t" not in keys and "n" in keys,
            )
            await pilot.press("n", "enter")  # a new dice table
            await keys_when(
                pilot,
                app,
                lambda: client.table is not None and type(app.screen).__name__ == "LobbyScreen",
                "the table",
                lambda keys: "t" in keys,
            )
            await client.close()


async def test_knock_throw_is_offered_only_once_the_others_may_no_longer_knock(tmp_path):
    """Issue 21 point 5: the footer offered r while the others could still knock on the last
    throw [D15]. Now it comes when the window closes; an r before that hears why."""
    from tests.uiutil import settle

    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await seat_both(pilot, app, client, other, "knock", {"knock_window_ms": 4000})
            await pilot.press("enter")  # no pre-lay
            await other.prelay([])
            game = client.game
            await wait_for(pilot, lambda: game.phase == "play", what="the pre-lays")
            for _ in range(4):  # until Ana's throw waits out a window
                view = game.view(1)
                if (
                    view["turn"] == 1
                    and (view.get("roll_from") or 0) > client.host_time_ms() + 1500
                ):
                    break
                if view["turn"] == 1:  # her first throw: no window before it
                    await pilot.press("r")
                    await wait_for(
                        pilot, lambda: game.view(1)["stage"] == "decide", what="Ana's throw"
                    )
                    await pilot.press("p")
                    await wait_for(pilot, lambda: game.view(1)["turn"] == 0, what="Bo's turn")
                else:
                    await wait_for(
                        pilot,
                        lambda: (
                            {"type": "roll"} in other.game.legal_actions(0, other.host_time_ms())
                        ),
                        what="Bo's window to pass",
                    )
                    await other.act({"type": "roll"})
                    await other.act({"type": "pass"})
                    await wait_for(pilot, lambda: game.view(1)["turn"] == 1, what="Ana's turn")
            else:
                raise AssertionError("Ana never had to wait out a knock window")
            await settle(pilot, client)
            assert "r" not in footer_keys(app), "no throw while the others may still knock"
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: any("others may still knock" in words for words in app.notices_shown),
                what="why not yet",
            )
            await keys_when(pilot, app, lambda: True, "the window closed", lambda keys: "r" in keys)
            await client.close()
