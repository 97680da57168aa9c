"""[D20] No grab or knock before the dice could be seen, over real TCP against a real host.

Issue 20, point 4: a race grab sent just before the throw reached the host about 1 ms after
it and counted first. The host now refuses, at no cost, a grab (race) or a knock (knock) that
arrives sooner than the reaction floor after the throw was written to the sender's
connection. To send at exactly the moment that matters, the test hooks the host's table: just
before (or just after) it writes the event that throws to its members, the player's client
writes its action to its socket, so the host reads it right after the throw went out. The
same action after the floor is stamped as always.
"""

import asyncio
import re

import pytest

from kismet_tui.net.client import ActionRefused
from protocol.limits import REACTION_FLOOR_MS
from server.reaction import shows_a_throw
from tests.netutil import connected, looked_at_the_dice, running_host, start_together, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]

# (Any number of seconds: with the floor raised for a test, a busy machine may take over one.)
TOO_QUICK = re.compile(
    r"Too quick: the dice were shown \d+\.\d\d s ago\. Look first, then (grab|knock)\."
)


def send_now(client, action: dict) -> asyncio.Future:
    """Write an `act` to the client's socket at once (no await), its answer as a future."""
    rid = client._next_id
    client._next_id += 1
    future = asyncio.get_running_loop().create_future()
    client._pending[rid] = future
    client._send({"type": "act", "action": action, "id": rid})
    return future


def answer_the_next_throw(hosted, client, choose, before: bool) -> list:
    """At the table's next throw, `client` sends `choose(game)` (None: nothing this time):
    written just before the host writes the throw to its members, or just after. The list
    gets the future of the answer."""
    sent: list = []
    original = hosted.publish

    def publish(out):
        throw = shows_a_throw(out.notes) and not sent
        action = choose(hosted.game) if throw else None
        if action is not None and before:
            sent.append(send_now(client, action))
        result = original(out)
        if action is not None and not before:
            sent.append(send_now(client, action))
        return result

    hosted.publish = publish
    return sent


def stamped(hosted, seat: int, kind: str, since: int) -> list:
    return [e for e in hosted.events[since:] if e["seat"] == seat and e["action"]["type"] == kind]


async def refused_too_quick(sent: list) -> str:
    await wait_until(lambda: sent and sent[0].done())
    with pytest.raises(ActionRefused) as err:
        sent[0].result()
    assert err.value.code == "too_quick"
    assert TOO_QUICK.fullmatch(err.value.words), err.value.words
    shown = float(err.value.words.split("shown ")[1].split(" s")[0])
    assert shown < REACTION_FLOOR_MS / 1000
    return err.value.words


def grab_of(card: dict) -> dict:
    return {"type": "grab", "card": card["pos"], "id": card["id"]}


async def test_race_a_grab_at_the_throw_is_refused_in_words_at_no_cost_and_one_after_the_floor_counts(
    tmp_path,
):
    # A long round limit: rounds end when all have acted, never by the clock of a busy machine.
    # Four players, so the pile lasts: a circle with no target (one throw in about 18) is
    # wiped, and two seats' 22 cards run out after one wipe, three seats' after two.
    options = {"countdown_ms": 200, "round_limit_ms": 60000, "reveal_ms": 20}
    async with running_host(tmp_path) as host:
        async with (
            connected(host, "Ana") as ana,
            connected(host, "Bo") as bo,
            connected(host, "Cy") as cy,
            connected(host, "Di") as di,
        ):
            table = await ana.create_table("race", options)
            for other in (bo, cy, di):
                await other.join_table(table["id"])
                await other.ready()
            hosted = host.tables[table["id"]]

            def blind(game):  # sent before the dice are out: any card of the circle
                if game.phase != "grabbing":
                    return None  # a wipe: nothing to grab this round
                pos = next(p for p, c in enumerate(game.circle) if c is not None)
                return {"type": "grab", "card": pos, "id": game.circle[pos]}

            def wrong_card(game):  # sent at the throw: a card that shows no target
                if game.phase != "grabbing":
                    return None
                view = game.view(bo.seat)
                misses = [c for c in view["circle"] if c and not c["target"]]
                return grab_of(misses[0]) if misses else None

            # Round 1: a grab pre-sent just before the throw is refused; after the floor,
            # the same player's grab of a matching card counts.
            sent = answer_the_next_throw(hosted, bo, blind, before=True)
            await ana.start()
            await wait_until(lambda: sent or hosted.game.finished)
            assert sent, "the game ended before a round to grab in"
            seen = len(hosted.events)
            await refused_too_quick(sent)
            assert stamped(hosted, bo.seat, "grab", seen) == []
            for other in (ana, cy, di):
                await other.act({"type": "pass"})  # they sit the round out: Bo's grab ends it
            await wait_until(
                lambda: bo.game.phase == "grabbing" and len(bo.events) == len(hosted.events)
            )
            await looked_at_the_dice(bo)
            target = next(c for c in bo.game.view(bo.seat)["circle"] if c and c["target"])
            # Round 2's throw is answered the moment it goes out (set before this round ends).
            sent = answer_the_next_throw(hosted, bo, wrong_card, before=False)
            event = await bo.act(grab_of(target))
            assert event["seat"] == bo.seat and event["action"]["id"] == target["id"]
            assert len(hosted.game.winning[bo.seat]) == 1  # the round ended: Bo won that card

            # Round 2: a wrong card grabbed at the throw would cost Bo his card; refused as
            # too quick, it costs nothing, and Bo may still act this round.
            await wait_until(lambda: sent or hosted.game.finished)
            assert sent, "the game ended before a second round to grab in"
            seen = len(hosted.events) - 1  # from the throw on
            await refused_too_quick(sent)
            assert stamped(hosted, bo.seat, "grab", seen) == []
            await wait_until(lambda: len(bo.events) == len(hosted.events))
            await looked_at_the_dice(ana, bo)
            await bo.act({"type": "pass"})  # Bo may still act: the refusal used nothing up
            await cy.act({"type": "pass"})
            await di.act({"type": "pass"})
            await ana.act({"type": "pass"})  # the round's end, and its reveal
            assert hosted.game.phase != "grabbing"
            assert len(hosted.game.winning[bo.seat]) == 1, "the refused wrong grab cost a card"
            assert hosted.game.under == []  # nothing slid under the pile
            players = (ana, bo, cy, di)
            await wait_until(lambda: all(p.events == hosted.events for p in players))
            assert {p.game.digest() for p in players} == {hosted.game.digest()}


async def test_knock_a_knock_at_the_throw_is_refused_and_one_after_the_floor_counts(tmp_path):
    options = {"knock_window_ms": 0, "away_limit_ms": 60000}
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            table = await start_together(ana, [bo], "knock", options)
            hosted = host.tables[table["id"]]
            await wait_until(lambda: ana.game is not None and bo.game is not None)
            await ana.prelay([])
            await bo.prelay([])
            await wait_until(
                lambda: (
                    hosted.game.phase == "play"
                    and ana.game.phase == "play"
                    and bo.game.phase == "play"
                )
            )
            thrower = ana if hosted.game.turn == ana.seat else bo
            knocker = bo if thrower is ana else ana
            sent = answer_the_next_throw(
                hosted, knocker, lambda game: {"type": "knock"}, before=False
            )
            seen = len(hosted.events)
            await thrower.act({"type": "roll"})
            await refused_too_quick(sent)
            assert stamped(hosted, knocker.seat, "knock", seen) == []
            await wait_until(lambda: len(knocker.events) == len(hosted.events))
            await looked_at_the_dice(knocker)
            event = await knocker.act({"type": "knock"})  # after the floor: judged as always
            assert event["seat"] == knocker.seat and event["action"]["type"] == "knock"
            await wait_until(lambda: ana.events == bo.events == hosted.events)
            assert ana.game.digest() == bo.game.digest() == hosted.game.digest()


@pytest.mark.ui
async def test_the_app_shows_the_too_quick_words_and_the_card_stays_free(tmp_path, monkeypatch):
    """A person's grab that comes too soon: the words reach the player, nothing is grabbed.
    (The floor is raised for this test, so that a press at any time of the round is too soon
    on any machine; the words and their way to the screen are the real ones.)"""
    from server import reaction
    from tests.uiutil import first_race_round, make_app, wait_for

    monkeypatch.setattr(reaction, "FLOOR_S", 60.0)  # the words still say how long ago: "0.xx s"
    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            game = await first_race_round(pilot, app, client, other, 60000)
            hosted = host.tables[other.table["id"]]
            pos = next(c["pos"] for c in game.view(1)["circle"] if c)
            await pilot.press("abcdefghijk"[pos])
            await wait_for(
                pilot, lambda: any("Too quick" in n for n in app.notices_shown), what="the refusal"
            )
            words = next(n for n in app.notices_shown if "Too quick" in n)
            assert TOO_QUICK.fullmatch(words), words
            assert stamped(hosted, client.seat, "grab", 0) == []
            assert game.view(1)["grabs"] == [] and game.phase == "grabbing"
            await client.close()
