"""`kismet-replay FILE`: a saved game played back on the same screens the players saw.

The log (protocol.gamelog: header + stamped events) drives a local engine. A virtual clock
runs at the chosen speed and each event is applied when the clock reaches its stamp; waits
longer than MAX_GAP_MS (a player thinking over a dice turn) are cut short so nothing stalls.
The game screen watches as a spectator, so nothing can be sent.

Keys: space pause/play, right (or n) one event forward, left (or b) one event back (the
replica is played again from the start to the event before: a moment, even for thousands),
+ and - speed, home from the start, end to the end, v the review (screens/review.py),
escape (or q) leaves: a replay opened from the records goes back to them.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, NoReturn

from textual.binding import Binding

from protocol.host_messages import TableShown

from .app import ConnectionStatus, KismetApp
from .messages import EventApplied
from .net.published import Published
from .rules import Game, apply_event, game_from_header
from .rules.base import Plain
from .rules.game_types import Event, Header, LogHeader
from .rules.refusal import UNAVAILABLE, Refusal
from .rules.verify import Verification
from .source import EventNotes

SPEEDS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
MAX_GAP_MS = 1500
TICK_S = 0.05


class ReplayedEvent(Event):
    """An event the replay applied, with the notes its replica made for it (the move log's
    words), as the network client publishes one."""

    notes: EventNotes


class NothingToSend(Refusal):
    """A request made of a replay: `words` says why nothing can be sent."""

    def __init__(self, words: str) -> None:
        super().__init__(words, "replay", UNAVAILABLE)


class ReplaySource:
    """Stands where the network client stands (kismet_tui.source.GameSource): a game
    replica and its header, no seat, no table, and nothing can be sent."""

    state = "replay"
    live = False

    def __init__(self, header: Header, events: list[Event]) -> None:
        self.header: Header | None = header
        self.events = events
        self.table: TableShown | None = None
        self.seat: int | None = None
        self.client_id: int | None = None
        self.verification: Verification | None = None
        self.index = 0  # events applied so far
        self.notes: list[EventNotes] = []  # the notes the replica made for each of them
        self.clock_ms = 0  # the virtual host time
        self.game: Game | None = None
        self.restart()

    def restart(self) -> None:
        header: LogHeader = self.header or {}
        self.game = game_from_header(header)  # version 2: the revealed chance; version 1: its seed
        self.index = 0
        self.notes = []
        self.clock_ms = header.get("t0", 0)

    def host_time_ms(self) -> int:
        return self.clock_ms

    def applied_events(self) -> list[Event]:
        return self.events[: self.index]

    def applied_notes(self) -> list[EventNotes]:
        return self.notes

    async def messages(self) -> AsyncIterator[Published]:
        """A replay hears no host: ReplayApp's clock publishes the events instead."""
        nothing: tuple[Published, ...] = ()
        for message in nothing:
            yield message

    @property
    def done(self) -> bool:
        return self.index >= len(self.events)

    def rewind(self, to: int) -> None:
        """The replica as it was after `to` events, without a word to anyone (a jump: the
        screen is made again from the replica's notes)."""
        self.restart()
        to = max(0, min(len(self.events), to))
        while self.index < to:
            self.next_event()

    def next_event(self) -> ReplayedEvent:
        """Apply the next event to the replica and return it with its notes, as the network
        client publishes it."""
        event = self.events[self.index]
        assert self.game is not None  # restart() made it
        notes = apply_event(self.game, event)
        self.notes.append(notes)
        self.index += 1
        self.clock_ms = max(self.clock_ms, event["t"])
        return {**event, "notes": notes}

    def advance(self, elapsed_ms: float) -> list[ReplayedEvent]:
        """Move the clock on and apply every event it reaches; long waits are cut short."""
        if self.done:
            return []
        upcoming = self.events[self.index]["t"]
        if upcoming - self.clock_ms > MAX_GAP_MS:
            self.clock_ms = upcoming - MAX_GAP_MS
        self.clock_ms += int(elapsed_ms)
        applied = []
        while not self.done and self.events[self.index]["t"] <= self.clock_ms:
            applied.append(self.next_event())
        return applied

    # ---- requests: none reaches anyone --------------------------------------------------------
    def act_nowait(self, action: Mapping[str, Any]) -> NoReturn:
        raise NothingToSend("This is a replay: nothing can be played here.")

    async def act(self, action: Mapping[str, Any]) -> NoReturn:
        self.act_nowait(action)

    async def prelay(self, cards: list[int]) -> NoReturn:
        self.act_nowait({"type": "prelay"})

    async def chat(self, text: str) -> NoReturn:
        raise NothingToSend("This is a replay: nobody can hear you.")

    async def mute_watchers(self, muted: bool = True) -> NoReturn:
        raise NothingToSend("This is a replay: there is nobody to mute.")

    async def leave(self) -> NoReturn:
        raise NothingToSend("This is a replay: press ctrl+q to quit.")

    async def list_tables(self) -> NoReturn:
        await self.leave()

    async def create_table(
        self, ruleset: str, options: Plain | None = None, bots: int | list[str] = 0
    ) -> NoReturn:
        await self.leave()

    async def join_table(self, table_id: int, spectator: bool = False) -> NoReturn:
        await self.leave()

    async def ready(self, flag: bool = True) -> NoReturn:
        await self.leave()

    async def start(self) -> NoReturn:
        await self.leave()

    async def remove(self, seat: int) -> NoReturn:
        await self.leave()

    def here_nowait(self) -> NoReturn:
        self.act_nowait({"type": "here"})

    async def hand_to_bot(self, seat: int) -> NoReturn:
        self.act_nowait({"type": "hand_to_bot"})

    async def records(
        self, view: str, ruleset: str | None = None, player: str | None = None, page: int = 0
    ) -> NoReturn:
        await self.leave()


class ReplayApp(KismetApp):
    # Short words, so the footer fits 80 columns with the game's own keys and help.
    BINDINGS = [
        # One key, the word for what it does now (check_action keeps the other one off).
        Binding("space", "play_pause(True)", "Pause", priority=True),
        Binding("space", "play_pause(False)", "Play", priority=True),
        # One footer entry for each pair (the second key of a pair works, unshown).
        Binding("right,n", "step", "Step", key_display="←→"),
        Binding(
            "left,b", "step_back(True)", "Back", key_display="←"
        ),  # (shown when → is off: at the end)
        Binding("left,b", "step_back(False)", "Back", show=False),
        Binding("plus,equals_sign", "speed(1)", "Speed", key_display="+-"),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("home", "restart", "Restart"),
        # The game's review (screens/review.py): shown at the end, where the footer has
        # room (and the end box says it too); the key works all along.
        Binding("v", "review(True)", "Review"),
        Binding("v", "review(False)", "Review", show=False),
        Binding("end", "to_end", "End"),
        # Escape leaves (the screens' own escape, closing the end box or the help, comes
        # first): a replay opened from the records goes back to them.
        Binding("escape,q", "quit", "Quit", key_display="esc"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self, header: Header, events: list[Event], speed: float = 1.0, paused: bool = False
    ) -> None:
        self.source = ReplaySource(header, events)
        super().__init__(self.source, address="replay")
        self.speed_index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
        self.paused = paused
        self.last_tick = time.monotonic()
        self.show_progress()

    def start(self) -> None:
        self.route()
        self.set_interval(TICK_S, self.tick)

    def show_progress(self) -> None:
        """The status bar's "12/30 events · 2x": how far the replay is, and how it runs."""
        source = self.source
        mode = "paused" if self.paused else f"{SPEEDS[self.speed_index]:g}x"
        # The mark says it too: the pause sign while paused, the play sign while playing.
        state = "replay-paused" if self.paused else "replay"
        self.connection = ConnectionStatus(
            state, f"{source.index}/{len(source.events)} events · {mode}"
        )
        keys = (self.paused, source.done, source.index == 0)
        if keys != getattr(self, "keys_for", None):  # the footer, only when its keys change
            self.keys_for = keys
            self.refresh_bindings()

    def publish(self, events: list[ReplayedEvent]) -> None:
        for event in events:
            self.post_message(EventApplied(event["seq"], event["seat"], event["notes"]))
        self.show_progress()

    def tick(self) -> None:
        now = time.monotonic()
        elapsed = (now - self.last_tick) * 1000 * SPEEDS[self.speed_index]
        self.last_tick = now
        if not self.paused:
            self.publish(self.source.advance(elapsed))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Over the help page, space pages down (the help's own key), not play/pause.
        from .screens.help import HelpScreen
        from .screens.review import REVIEWED, is_review

        if action == "play_pause" and isinstance(self.screen, HelpScreen):
            return False
        if is_review(self.screen) and action in (
            "play_pause",
            "step",
            "step_back",
            "speed",
            "restart",
            "to_end",
        ):
            return False  # the review's own keys step there
        if action == "review":
            return (
                self.source.header is not None
                and self.source.header["ruleset"] in REVIEWED
                and parameters == (self.source.done,)
                and not isinstance(self.screen, HelpScreen)
                and not is_review(self.screen)
            )
        if action in ("play_pause", "step", "speed", "to_end") and self.source.done:
            return False  # at the end only going back goes on
        if action in ("step_back", "restart") and self.source.index == 0:
            return False
        if action == "step_back":
            return parameters == (self.source.done,)
        if action == "play_pause":
            return parameters == (not self.paused,)  # "Pause" while playing, "Play" while paused
        return super().check_action(action, parameters)

    def action_play_pause(self, pause: bool) -> None:
        self.paused = pause
        self.show_progress()

    def action_step(self) -> None:
        self.paused = True
        self.publish([self.source.next_event()] if not self.source.done else [])

    def action_step_back(self, shown: bool) -> None:
        """One event back: the replica played again from the start to the event before."""
        self.paused = True
        self.jump(self.source.index - 1)

    def action_to_end(self) -> None:
        self.paused = True
        self.jump(len(self.source.events))

    def jump(self, to: int) -> None:
        """The replay at event `to`, on a fresh screen (its move log written from the notes,
        the end box up if the game is over)."""
        self.source.rewind(to)
        self.shown_key = None
        self.route()
        self.show_progress()

    def action_review(self, shown: bool) -> None:
        """The review of the whole game, wherever the replay stands."""
        from .screens.review import review_screen

        self.paused = True
        self.show_progress()
        self.push_screen(review_screen(self.source.header or {}, self.source.events))

    def action_speed(self, step: int) -> None:
        self.speed_index = max(0, min(len(SPEEDS) - 1, self.speed_index + step))
        self.show_progress()

    def action_restart(self) -> None:
        self.jump(0)

    async def action_quit(self) -> None:
        self.exit()
