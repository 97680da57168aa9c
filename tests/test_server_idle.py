"""Nobody waits on a dawdler (docs/rules.md [D31]), over real TCP on 127.0.0.1: a connected
player who does nothing is played for when the turn limit passes, marked idle after two such
turns running (then played for at once), and back at their first action; the owner hands an
idle seat to a bot with words to everybody, and it comes back when its player acts."""

import asyncio

import pytest

from kismet_tui.bots.runner import BotLoop, bot_factory
from kismet_tui.net import Client, RequestError
from tests.netutil import connected, host_process, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


def heard(client, kinds=("notice",)):
    """Collect the messages of `kinds` the host pushes to `client` from now on."""
    seen = []

    async def collect():
        async for message in client.messages():
            if message["type"] in kinds and message.get("re") is None:
                seen.append(message)

    return seen, asyncio.create_task(collect())


async def with_a_player(owner, other, ruleset, options):
    """`owner` opens a table; `other`, a person's client played by a greedy policy (the host
    sees a human, who waits on the dawdler), sits down and is ready; `owner` starts."""
    table = await owner.create_table(ruleset, options)
    await other.join_table(table["id"])
    loop = asyncio.create_task(BotLoop(other, "greedy", 0.01, rematches=False).run())
    await wait_until(lambda: len(owner.table["seats"]) == 2 and owner.table["seats"][1]["ready"])
    await owner.start()
    await wait_until(lambda: owner.game is not None)
    return table, loop


def host_plays(client, seat):
    """The host's timeouts that played for `seat`, as (event, notes)."""
    out = []
    for event, notes in zip(client.events, client.notes):
        if (
            event["seat"] == -1
            and event["action"] == {"type": "timeout"}
            and any(
                n.get("type") in ("timeout", "default_play") and n.get("seat") == seat
                for n in notes
            )
        ):
            out.append((event, notes))
    return out


def waited(client, event):
    """How long after the event before it (or the game's start) the host stamped `event`."""
    index = client.events.index(event)
    return event["t"] - (client.events[index - 1]["t"] if index else client.header["t0"])


def idle_marks(client, seat):
    return [e for e in client.events if e["action"] == {"type": "away", "seat": seat, "idle": True}]


async def test_a_dice_dawdler_is_played_for_marked_idle_and_back_on_a_key(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            told, task = heard(ana)
            table, bo_plays = await with_a_player(ana, bo, "dice", {"turn_limit_ms": 1000})
            me = ana.seat
            # Ana does nothing: twice the host plays her turn when its limit passes...
            await wait_until(lambda: len(idle_marks(ana, me)) == 1, timeout=30)
            played = host_plays(ana, me)
            assert len(played) == 2
            for event, notes in played:
                assert notes[0]["why"] == "turn_limit" and notes[0]["limit_ms"] == 1000
                # ...each no sooner than the limit after her turn began (the event before it).
                assert waited(ana, event) >= 1000
            # ...and then she is idle, told in words with everybody.
            await wait_until(lambda: any(m["code"] == "idle" for m in told))
            assert [m["words"] for m in told if m["code"] == "idle"] == [
                "Ana missed 2 turns: the host plays for them until they press a key."
            ]
            await wait_until(lambda: ana.table["seats"][me]["idle"])
            # Idle, her next turn is played as soon as it comes, with no limit to wait out.
            await wait_until(lambda: len(host_plays(ana, me)) == 3)
            event, notes = host_plays(ana, me)[2]
            assert notes[0]["why"] == "idle"
            assert waited(ana, event) < 1000
            # A key (the app sends `here`) brings her back.
            ana.here_nowait()
            await wait_until(lambda: not ana.game.idle[me] and not ana.game.away[me])
            assert any(e["action"] == {"type": "back", "seat": me} for e in ana.events)
            assert not host.tables[table["id"]].running.away[me]
            bo_plays.cancel()
            task.cancel()


async def test_any_action_of_an_idle_player_brings_them_back(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            _, bo_plays = await with_a_player(ana, bo, "dice", {"turn_limit_ms": 1000})
            me = ana.seat
            await wait_until(lambda: ana.game.idle[me], timeout=30)
            # A move sent while idle: she is back first, then the move is judged (it may be
            # out of turn by now: refused in words, and she is back all the same).
            try:
                await ana.act({"type": "roll", "hold": []})
            except RequestError as refused:
                assert "Not your turn" in refused.words
            await wait_until(lambda: not ana.game.away[me])
            assert any(e["action"] == {"type": "back", "seat": me} for e in ana.events)
            bo_plays.cancel()


async def test_a_player_alone_with_bots_is_played_for_but_never_marked_idle(tmp_path):
    """Bots never mind waiting: nobody is marked idle where no other human waits."""
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table("dice", {"turn_limit_ms": 1000}, bots=["greedy"])
            await wait_until(
                lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:])
            )
            await ana.start()
            await wait_until(lambda: ana.game is not None)
            await wait_until(lambda: len(host_plays(ana, ana.seat)) >= 3, timeout=30)
            assert not idle_marks(ana, ana.seat) and not ana.game.away[ana.seat]


async def test_the_owner_hands_an_idle_seat_to_a_bot_and_it_comes_back(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            table = await ana.create_table("dice")  # the default limits: 60 s a turn
            await bo.join_table(table["id"])
            await bo.ready()
            ana_told, ana_task = heard(ana)
            bo_told, bo_task = heard(bo)
            await ana.start()
            await wait_until(lambda: ana.game is not None and bo.game is not None)
            bo_seat = bo.seat
            # Only the owner may; and not their own seat.
            with pytest.raises(
                RequestError, match="Only the table's owner can hand a seat to a bot."
            ):
                await bo.hand_to_bot(ana.seat)
            with pytest.raises(RequestError, match="your own seat"):
                await ana.hand_to_bot(ana.seat)
            await ana.hand_to_bot(bo_seat)
            words = "Ana handed Bo's seat to a bot."
            await wait_until(
                lambda: (
                    any(m.get("words") == words for m in bo_told)
                    and any(m.get("words") == words for m in ana_told)
                )
            )
            await wait_until(lambda: bo.game.idle[bo_seat] and ana.table["seats"][bo_seat]["idle"])
            # Bo's turns are played for him as soon as they come: Ana plays on without waiting.
            if ana.game.current == ana.seat:
                await ana.act({"type": "roll", "hold": []})
                await ana.act({"type": "score", "box": "yarborough"})
            await wait_until(lambda: len(host_plays(ana, bo_seat)) == 1, timeout=10)
            assert host_plays(ana, bo_seat)[0][1][0]["why"] == "idle"
            with pytest.raises(RequestError, match="away already"):
                await ana.hand_to_bot(bo_seat)
            # Bo presses a key: his seat is his again.
            bo.here_nowait()
            await wait_until(
                lambda: not ana.game.away[bo_seat] and not ana.table["seats"][bo_seat]["idle"]
            )
            ana_task.cancel()
            bo_task.cancel()


async def test_a_knock_dawdler_on_a_real_host_is_played_for_and_marked_idle(tmp_path):
    """A real `kismet-host` process and two real clients: Bo plays, Ana does nothing; her
    pre-lay and her turn run out, the host plays for her, and after two she is idle."""
    with host_process(tmp_path) as proc:
        ana, bo = Client(reconnect=False), Client(reconnect=False)
        await ana.connect("127.0.0.1", proc.port, "Ana")
        await bo.connect("127.0.0.1", proc.port, "Bo")
        try:
            options = {"turn_limit_ms": 1000, "away_limit_ms": 1000, "knock_window_ms": 30}
            _, bo_plays = await with_a_player(ana, bo, "knock", options)
            me = ana.seat
            await wait_until(lambda: len(idle_marks(ana, me)) == 1, timeout=60)
            notes = [n for per_event in ana.notes for n in per_event]
            assert {"type": "prelay_defaulted", "seat": me, "limit_ms": 1000} in notes
            played = [n for n in notes if n.get("type") == "default_play" and n.get("seat") == me]
            assert played and played[0]["why"] == "turn_limit" and played[0]["limit_ms"] == 1000
            ana.here_nowait()
            await wait_until(lambda: not ana.game.away[me])
            assert any(e["action"] == {"type": "back", "seat": me} for e in ana.events)
            bo_plays.cancel()
        finally:
            await ana.close()
            await bo.close()


async def test_a_race_walk_away_is_marked_idle_and_rounds_stop_waiting_for_them(tmp_path):
    """Race has no turns: a player who lets two rounds in a row run out (cards to take, and
    no grab and no pass of theirs) is marked idle, so the next rounds end as soon as the
    others are done instead of waiting out the round limit; a key brings them back."""
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            told, task = heard(ana)
            table = await ana.create_table(
                "race", {"countdown_ms": 100, "round_limit_ms": 1500, "reveal_ms": 100}
            )
            await bo.join_table(table["id"])
            await bo.ready(True)
            await wait_until(
                lambda: len(ana.table["seats"]) == 2 and ana.table["seats"][1]["ready"]
            )
            await ana.start()
            await wait_until(lambda: ana.game is not None and bo.game is not None)
            me = ana.seat

            async def bo_passes_every_round():
                """Bo sees no match, ever: only Ana could end a round early."""
                while True:
                    view = bo.game.view(bo.seat)
                    if view["phase"] == "grabbing" and not view["done"][bo.seat]:
                        try:
                            await bo.act({"type": "pass"})
                        except RequestError:
                            pass  # (the round ended meanwhile)
                    await asyncio.sleep(0.02)

            bo_plays = asyncio.create_task(bo_passes_every_round())
            await wait_until(lambda: len(idle_marks(ana, me)) == 1, timeout=60)
            await wait_until(lambda: any(m["code"] == "idle" for m in told))
            assert [m["words"] for m in told if m["code"] == "idle"] == [
                "Ana let 2 rounds run out: the host counts them as passing until they press a key."
            ]
            # The two rounds before the mark ran to their limit, with no move of Ana's.
            mark = ana.events.index(idle_marks(ana, me)[0])
            assert round_ends(ana, 0, mark) == ["time_up", "time_up"]
            assert not any(e["seat"] == me for e in ana.events[:mark])
            # Idle, she counts as passing: a round ends as soon as Bo has passed.
            await wait_until(
                lambda: "all_done" in round_ends(ana, mark, len(ana.events)), timeout=60
            )
            ana.here_nowait()
            await wait_until(lambda: not ana.game.away[me])
            bo_plays.cancel()
            task.cancel()


def round_ends(client, start, stop):
    """Why each race round ended among the client's events start..stop."""
    return [
        note["why"]
        for notes in client.notes[start:stop]
        for note in notes
        if note.get("type") == "round_ended"
    ]


async def test_a_bot_slower_than_the_race_round_is_never_marked_idle(tmp_path):
    """A bot is the host's own player: one whose reaction is slower than a short round limit
    lets rounds run out, and is still a bot, never marked idle (then it would count as
    passing, and never grab again)."""
    # (A greedy bot at three times its own pace takes 0.9-3.3 s to grab or pass: longer than
    # every half-second round. At its own pace, 0.3-1.1 s, a quarter of its grabs beat the
    # round, and one CI run on a loaded machine saw the game end before three ran out.)
    async with (
        running_host(tmp_path, bot_factory=bot_factory(speed=3.0)) as host,
        connected(host, "Ana") as ana,
    ):
        await ana.create_table(
            "race", {"countdown_ms": 50, "round_limit_ms": 500, "reveal_ms": 20}, bots=["greedy"]
        )
        await wait_until(lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:]))
        await ana.start()
        await wait_until(lambda: ana.game is not None)

        def rounds_run_out() -> int:
            return sum(
                1
                for notes in ana.notes
                for note in notes
                if note.get("type") == "round_ended" and note["why"] == "time_up"
            )

        async def ana_passes():
            while True:
                view = ana.game.view(ana.seat)
                if view["phase"] == "grabbing" and not view["done"][ana.seat]:
                    try:
                        await ana.act({"type": "pass"})
                    except RequestError:
                        pass
                await asyncio.sleep(0.01)

        passing = asyncio.create_task(ana_passes())
        bot = 1 - ana.seat
        await wait_until(
            lambda: rounds_run_out() >= 3 or idle_marks(ana, bot) or ana.game.finished, timeout=60
        )
        passing.cancel()
        assert not idle_marks(ana, bot)
        assert rounds_run_out() >= 3, "the bot was quicker than the round: nothing shown"
