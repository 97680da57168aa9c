"""Run a bot as a real client over TCP: connect, take its seat, keep the replica, play.

After every host message the runner asks the policy again (`decide(game, seat, now_ms)`) and
sends the action after the delay it asked for, unless the game changed first. Policies choose
from `legal_actions(seat, t)` at the time they will act, which lists exactly what the host's
engine accepts then, so a refusal means the game moved on while the action was on its way
(another player grabbed the card first): the runner then asks the policy again about the game
as it now stands. Or, when the refusal's kind is NOT_YET (kismet_tui/rules/refusal.py), that
the bot's estimate of the host's clock runs ahead of the host's own and the action came too
soon (a knock-game roll before the knock window closes): the runner asks again a little later
each time, until the host's clock agrees. Any other refusal
of an action chosen for the game as it still stands is a bug; it is logged and not retried:
the next host message asks the policy again.
Knock's secret pre-lay goes through `Client.prelay`, which also reveals it when the time comes.
`speed` scales every pause (0: act at once; tests use it), but never brings an action before
the time the rules allow it, nor a grab or knock sooner than the host's reaction floor after
this bot got the throw [D20] (the host would refuse it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from typing import Any, Protocol

from kismet_tui.net.client import ActionRefused, Client, OpenStream, RequestError
from kismet_tui.rules.base import AnyGame
from kismet_tui.rules.refusal import NOT_YET
from protocol.limits import REACTION_FLOOR_MS

from . import make_policy
from .decision import Policy

log = logging.getLogger("kismet.bots")
SLOW_DOWN_MS = 500  # the host's flood limit answered `slow_down`: wait before acting again
# An action the host found early by its clock is asked again after 25 ms, then 50, 100, ...
EARLY_RETRY_MS = 25
EARLY_RETRY_MAX_MS = 1000
# Messages that can change what the bot should do (pongs and chat cannot).
REACT_TO = {"event", "game", "table", "welcome", "connection", "desync"}
# The actions that answer a throw, held back to the host's reaction floor [D20]. The bot counts
# from when it got the throw, which is after the host wrote it, and sends before the host reads
# the action, so the host always measures at least as long; the margin covers timer rounding.
ANSWERS_A_THROW = {"grab", "knock"}
REACTION_MARGIN_MS = 10


async def run_bot(
    host: str,
    port: int,
    table_id: int,
    level: str,
    token: str | None = None,
    name: str | None = None,
    speed: float = 1.0,
    rematches: bool = True,
    open_stream: OpenStream | None = None,
) -> None:
    """Play at `table_id` until the table closes (or, without rematches, its game ends);
    `open_stream` (the host's, for its own bots) opens the connection instead of asyncio."""
    client = Client()
    client.open_stream = open_stream
    await client.connect(host, port, name or f"Bot ({level})", token)
    try:
        if client.table is None:
            await client.join_table(table_id)
        await BotLoop(client, level, speed, rematches).run()
    finally:
        await client.close()


class BotLoop:
    def __init__(self, client: Client, level: str, speed: float, rematches: bool):
        self.client = client
        self.level = level
        self.speed = speed
        self.rematches = rematches
        self.policy: Policy[Any] | None = None  # (the table's ruleset is known at run time)
        self.policy_for: int | None = None  # id() of the header the policy was made for
        self.timer: asyncio.TimerHandle | None = None
        self.in_flight = False
        self.ready_sent = False  # a ready request is on its way
        self.entropy_for: str | None = None  # the commit of the game our entropy went to
        self.early_sends = 0  # actions the host found early by its clock (see _act)
        self.early_streak: tuple[tuple[int, int], int] | None = None  # (game state, times in a row)
        # Its requests on their way (a ready, an action): kept, so the loop cannot collect
        # one mid-flight, and cancelled when the loop ends.
        self.tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        try:
            await self._follow()
        finally:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            for task in list(self.tasks):
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

    def keep(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _follow(self) -> None:
        messages = self.client.messages()
        self.react()
        async for message in messages:
            kind = message.get("type")
            if message["type"] == "connection" and message["state"] == "closed":
                return
            if self.client.table is None and kind in ("table", "welcome"):
                return  # the table closed, or we lost our seat
            if kind == "event" or kind == "game":
                self.in_flight = False
            table = self.client.table
            if not self.rematches and table is not None and table["state"] == "finished":
                return
            if kind in REACT_TO:
                self.react()

    def react(self) -> None:
        client = self.client
        table = client.table
        if table is None or client.seat is None:
            return
        if table["state"] in ("lobby", "finished"):
            # A bot is a client like any other: it says ready with its own entropy once for
            # each game (each commit), even on a seat the host made ready already.
            # The table the bot reads is the newest the client holds, not the one the message
            # brought: a game started at once (a "Play a game now" table) is already
            # "playing" when the bot reads the answer to its ready. So "sent" lasts only
            # while the request travels, never until a table that shows it.
            commit = table.get("commit")
            if not table["seats"][client.seat]["ready"] or self.entropy_for != commit:
                if not self.ready_sent:
                    self.ready_sent = True
                    self.entropy_for = commit
                    self.keep(self._ready())
            return
        self.schedule(0)

    async def _ready(self) -> None:
        try:
            await self.client.ready(True)
        except RequestError:
            pass
        finally:
            self.ready_sent = False

    def schedule(self, extra_ms: int) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        client = self.client
        game, seat, header = client.game, client.seat, client.header
        if game is None or seat is None or header is None or game.finished or self.in_flight:
            return
        if self.policy is None or self.policy_for != id(header):
            # The bot's own choices vary per game: seeded from the game's commit (versions 2, 3)
            # or seed (version 1), never from anything that could tell it the dice.
            seed = header.get("seed", b"")
            key = header.get("commit") or (seed.hex() if isinstance(seed, bytes) else str(seed))
            seed = int(str(key)[:16] or "0", 16) ^ seat
            self.policy = make_policy(header["ruleset"], self.level, seat, seed)
            self.policy_for = id(header)
        choice = self.policy.decide(game, seat, client.host_time_ms())
        if choice is None:
            return
        delay_ms, action = choice
        delay = (
            max(
                0,
                self._pause_ms(game, seat, delay_ms, action) + extra_ms,
                self._reaction_wait_ms(action),
            )
            / 1000
        )
        # The game it was chosen on goes with it: by the time the timer fires, the client may
        # have applied events the bot has not reacted to yet (they wait in its queue).
        self.timer = asyncio.get_running_loop().call_later(
            delay, self._send, action, self._game_state()
        )

    def _pause_ms(
        self, game: AnyGame, seat: int, delay_ms: int, action: Mapping[str, Any]
    ) -> float:
        """The policy's pause scaled by `speed`, but never so short that the action would
        reach the host before its rules allow it (a knock-game roll waits out the knock
        window [D15] whatever the speed): then the shortest pause after which it is legal,
        found between the scaled pause and the policy's own (which it chose to be legal)."""
        scaled = delay_ms * self.speed
        if self.speed >= 1:
            return scaled
        now = self.client.host_time_ms()

        def legal_after(pause: int) -> bool:
            return action in game.legal_actions(seat, now + pause)

        low, high = int(scaled), delay_ms
        if legal_after(low) or not legal_after(high):
            return scaled
        while high - low > 1:  # legal from some moment on: find it
            middle = (low + high) // 2
            low, high = (low, middle) if legal_after(middle) else (middle, high)
        return high

    def _reaction_wait_ms(self, action: Mapping[str, Any]) -> float:
        """How long a grab or knock must still wait so that it never beats the floor [D20]."""
        if action.get("type") not in ANSWERS_A_THROW:
            return 0
        return REACTION_FLOOR_MS + REACTION_MARGIN_MS - self.client.since_throw_ms()

    def _game_state(self) -> tuple[int, int]:
        """Which game, and how far it has gone: changes with every event the bot applies."""
        return id(self.client.header), len(self.client.events)

    def _send(self, action: Mapping[str, Any], chosen_on: tuple[int, int]) -> None:
        self.timer = None
        self.in_flight = True
        self.keep(self._act(action, chosen_on))

    async def _act(self, action: Mapping[str, Any], decided_on: tuple[int, int]) -> None:
        """Send one action chosen on the game as it was at `decided_on`. Each action keeps its
        own: an event arriving while this one travels lets the bot choose and send another,
        and that one's state must not make this one's refusal look like a bug."""
        try:
            if action.get("type") == "prelay" and "cards" in action:
                await self.client.prelay(action["cards"])
            else:
                await self.client.act(action)
        except ActionRefused as refusal:
            self.in_flight = False
            if self._game_state() != decided_on:
                self.schedule(0)  # lost a race: decide again about the game as it is now
            elif refusal.kind == NOT_YET:
                # Refused only because it came too soon by the host's clock (a knock window
                # still open there), though our estimate of that clock said it was time: the
                # estimate runs ahead, as it can over a busy network. The host's clock decides:
                # ask again a little later each time.
                self.early_sends += 1
                streak = (
                    self.early_streak[1] + 1
                    if self.early_streak and self.early_streak[0] == decided_on
                    else 1
                )
                self.early_streak = (decided_on, streak)
                self.schedule(min(EARLY_RETRY_MAX_MS, EARLY_RETRY_MS * 2 ** (streak - 1)))
            else:
                log.warning(
                    "bot (%s) at seat %s: %r refused although legal: %s",
                    self.level,
                    self.client.seat,
                    action,
                    refusal.words,
                )
        except RequestError as exc:  # slow_down, or the connection went
            self.in_flight = False
            if exc.code == "slow_down":
                self.schedule(SLOW_DOWN_MS)


class BotHost(Protocol):
    """What a bot factory asks of the host that seats its bots (a server.Host)."""

    port: int | None

    def connect_address(self) -> str: ...

    async def open_own_stream(
        self, address: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection the host counts against no address (its own bots are nobody's)."""


class LoopbackBotFactory:
    """A `bot_factory` for `server.Host`: called with (host, table_id, level, token), it starts
    a bot as an asyncio task in the host's process, connecting over loopback like any other
    client, through the host's own door (`open_own_stream`: counted against no address's share).
    `levels` are the levels it can start (the lobby refuses a table asking for others)."""

    def __init__(self, speed: float = 1.0) -> None:
        from . import POLICIES

        self.speed = speed
        self.levels = set(POLICIES)

    def __call__(self, host: BotHost, table_id: int, level: str, token: str) -> asyncio.Task[None]:
        table = getattr(host, "tables", {}).get(table_id)
        if level == "hard" and getattr(table, "ruleset", None) == "dice":
            from .dice_levels import prepare

            prepare()  # the optimal table: loaded, or built in the background, before it plays
        # The host seats bots only once it listens (a table is opened by a connected player).
        assert host.port is not None
        return asyncio.create_task(
            run_bot(
                host.connect_address(),
                host.port,
                table_id,
                level,
                token=token,
                speed=self.speed,
                open_stream=host.open_own_stream,
            )
        )


def bot_factory(speed: float = 1.0) -> LoopbackBotFactory:
    return LoopbackBotFactory(speed)
