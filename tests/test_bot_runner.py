"""The bot runner's answer to a refusal: decide again at once when the game moved on while
the action travelled (another player was first); ask again a little later when the action
became legal with time alone and the host's clock is behind the bot's estimate of it; never
retry any other action refused on the game it was chosen for (that is a bug, and it is
logged)."""

import asyncio
import logging

import pytest

from kismet_tui.bots.runner import BotLoop, bot_factory
from kismet_tui.net.client import ActionRefused, Client
from tests.netutil import FAST, connected, running_host, wait_until


class RefusingClient:
    """Just enough of a Client: `act` is refused, after `arrive` more events came in."""

    def __init__(self, arrive: int, refusal: ActionRefused | None = None):
        self.header, self.events, self.seat, self.arrive = {}, [], 0, arrive
        self.game = None  # no replica: only the refusal itself says what it was
        self.refusal = refusal or ActionRefused(
            "illegal", "Seat 1 grabbed that card first: grab another one."
        )

    async def act(self, action):
        self.events += [{"seq": len(self.events) + 1}] * self.arrive
        raise self.refusal


def recording_loop(client) -> tuple[BotLoop, list]:
    """A runner on `client` whose schedule() (how it asks the policy again) only records."""
    loop = BotLoop(client, "easy", 1.0, rematches=True)
    asked: list = []
    loop.schedule = asked.append
    return loop, asked


async def refused_once(arrive: int) -> tuple[BotLoop, list]:
    loop, asked = recording_loop(RefusingClient(arrive))
    loop.in_flight = True  # as _send leaves it
    await loop._act({"type": "grab", "card": 3, "id": 14}, loop._game_state())
    return loop, asked


async def test_a_refusal_after_the_game_moved_on_decides_again_at_once(caplog):
    loop, asked = await refused_once(arrive=1)
    assert asked == [0] and not loop.in_flight
    assert not caplog.records


async def test_a_refusal_on_the_unchanged_game_is_logged_and_not_retried(caplog):
    caplog.set_level(logging.WARNING, logger="kismet.bots")
    loop, asked = await refused_once(arrive=0)
    assert asked == [] and not loop.in_flight
    assert any("refused although legal" in r.getMessage() for r in caplog.records)


async def test_a_refusal_of_kind_not_yet_is_asked_again_a_little_later(caplog):
    """The host's clock said "too soon" (its knock window still open): the refusal's kind
    says so, and the runner asks again after 25 ms, then 50, without logging a bug."""
    caplog.set_level(logging.WARNING, logger="kismet.bots")
    loop, asked = recording_loop(
        RefusingClient(
            0, ActionRefused("illegal", "Wait: others may still knock for 0.1 s.", "not_yet")
        )
    )
    for _ in range(2):
        loop.in_flight = True
        await loop._act({"type": "roll"}, loop._game_state())
    assert asked == [25, 50] and loop.early_sends == 2 and not loop.in_flight
    assert not caplog.records


async def test_a_second_action_sent_meanwhile_does_not_hide_the_lost_race(caplog):
    # Seen in CI: the other bot's grab event arrives before our refusal; the bot reacts to
    # the event by choosing and sending another action; then the first refusal arrives.
    # It was chosen on the older game, so it lost a race: decide again, log nothing.
    caplog.set_level(logging.WARNING, logger="kismet.bots")
    client = RefusingClient(arrive=0)
    loop, asked = recording_loop(client)
    chosen_on = loop._game_state()
    client.events.append({"seq": 1})  # the other's grab, seen while ours travelled (the
    # bot then chose and sent its next action on this newer game: that does not matter)
    loop.in_flight = True
    await loop._act({"type": "grab", "card": 3, "id": 14}, chosen_on)
    assert asked == [0]
    assert not any("refused although legal" in r.getMessage() for r in caplog.records)


@pytest.mark.network
@pytest.mark.timeout(120)
async def test_a_bot_whose_clock_runs_ahead_still_plays_its_game_to_the_end(tmp_path):
    """Seen in CI under load: a bot's estimate of the host's clock ran ahead, so it sent its
    knock-game roll before the host's knock window closed, the host refused it ("Wait: others
    may still knock for 0.1 s") on the unchanged game, and the bot never tried again: the
    game stood still. Its clock now runs 250 ms ahead on purpose; it must still finish."""
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table(
                "knock", {"knock_window_ms": 200, "away_limit_ms": 30000}, bots=["greedy"]
            )
            await wait_until(
                lambda: all(s["connected"] and s["ready"] for s in ana.table["seats"][1:])
            )
            own_clock = ana.host_time_ms
            ana.host_time_ms = lambda: own_clock() + 250  # type: ignore[method-assign]
            await ana.start()
            bot = BotLoop(ana, "greedy", 0.01, rematches=False)
            player = asyncio.create_task(bot.run())
            try:
                await wait_until(lambda: ana.game is not None and ana.game.finished, timeout=90)
            finally:
                player.cancel()
            assert bot.early_sends > 0, (
                "the skewed clock did send too early (or this test tests nothing)"
            )


async def test_an_action_is_judged_by_the_game_it_was_chosen_on_not_sent_on(caplog):
    # Seen with the race bots under load: a bot chose a card; before its timer fired, the
    # client applied another player's grab of it (the bot had not read that event from its
    # queue yet); the refusal was then judged by the state at sending, which already held
    # that grab, and logged as a bug. The state it was chosen on travels with the timer.
    caplog.set_level(logging.WARNING, logger="kismet.bots")
    client = RefusingClient(arrive=0)
    loop, asked = recording_loop(client)
    chosen_on = loop._game_state()
    client.events.append({"seq": 1})  # applied by the client while the timer ran
    loop._send({"type": "grab", "card": 3, "id": 14}, chosen_on)
    await wait_until(lambda: not loop.in_flight)
    assert asked == [0], "a lost race: decide again"
    assert not any("refused although legal" in r.getMessage() for r in caplog.records)


async def play_to_the_end(client) -> None:
    """`client` plays its seat as a greedy bot until the game it sits in is over."""
    player = asyncio.create_task(BotLoop(client, "greedy", 0.01, rematches=False).run())
    try:
        await wait_until(lambda: client.game is not None and client.game.finished, timeout=90)
    finally:
        player.cancel()


@pytest.mark.network
@pytest.mark.timeout(180)
async def test_bots_at_a_table_started_at_once_answer_every_rematch(tmp_path):
    """Seen by a newcomer: at a "Play a game now" table (created and started at once) the
    bots never said ready again after the game, so the rematch waited for them forever."""
    async with running_host(tmp_path, bot_factory=bot_factory(speed=0.01)) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table("race", FAST["race"], bots=["medium", "easy"])
            await ana.start()  # at once, as the form does
            game = await wait_until_a_game_other_than(ana, None)
            for _ in range(2):
                await play_to_the_end(ana)
                await wait_until(
                    lambda: (
                        ana.table["state"] == "finished"
                        and all(s["ready"] for s in ana.table["seats"][1:])
                    )
                )  # by themselves
                await ana.ready(True)
                await ana.start()
                game = await wait_until_a_game_other_than(ana, game)


@pytest.mark.network
@pytest.mark.timeout(120)
async def test_a_rematch_asked_before_a_bot_answered_waits_for_it(tmp_path, monkeypatch):
    """A bot is never a player to wait for: the owner's start, asked before a bot said ready
    for the next game, is not refused ("waiting for Bot 1") but waits for the bot, briefly,
    like a first game does. Here the bot never answers."""
    from server import starting

    monkeypatch.setattr(starting, "BOT_SEATING_WAIT_S", 0.2)
    async with running_host(tmp_path, bot_factory=bots_that_play_once) as host:
        async with connected(host, "Ana") as ana:
            await ana.create_table("race", FAST["race"], bots=["easy"])
            await ana.start()
            game = await wait_until_a_game_other_than(ana, None)
            await play_to_the_end(ana)
            await wait_until(lambda: ana.table["state"] == "finished")
            assert not ana.table["seats"][1]["ready"]
            await ana.ready(True)
            await ana.start()  # refused before: "waiting for Bot 1 (easy)"
            await wait_until_a_game_other_than(ana, game)


class BotThatPlaysOnce(BotLoop):
    """A bot that says ready for its table's first game only, and stays seated."""

    async def _ready(self) -> None:
        if not (self.client.table or {}).get("games_played"):
            await super()._ready()


def bots_that_play_once(host, table_id, level, token):
    """A bot factory whose bots are BotThatPlaysOnce, real clients over loopback."""

    async def run() -> None:
        client = Client()
        await client.connect(host.connect_address(), host.port, "Bot", token)
        try:
            await BotThatPlaysOnce(client, level, 0.01, rematches=True).run()
        finally:
            await client.close()

    return asyncio.create_task(run())


async def wait_until_a_game_other_than(client, game):
    await wait_until(
        lambda: (
            client.game is not None
            and client.game is not game
            and client.table["state"] == "playing"
        )
    )
    return client.game
