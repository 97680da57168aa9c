"""`kismet-replay FILE`: a saved game played back on the same screens the players saw.

The log (protocol.gamelog: header + stamped events) drives a local engine. A virtual clock
runs at the chosen speed and each event is applied when the clock reaches its stamp; waits
longer than MAX_GAP_MS (a player thinking over a dice turn) are cut short so nothing stalls.
The game screen watches as a spectator, so nothing can be sent.

Keys: space pause/play, right (or n) one event forward, + and - speed, home from the start.
"""

from __future__ import annotations

import time

from textual.binding import Binding

from .app import KismetApp
from .messages import HostMessage
from .rules import apply_event, game_from_header

SPEEDS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
MAX_GAP_MS = 1500
TICK_S = 0.05


class ReplaySource:
    """Stands where the network client stands: a game replica, its header, no seat."""

    state = "replay"

    def __init__(self, header: dict, events: list[dict]) -> None:
        self.header = header
        self.events = events
        self.table = None
        self.seat = None
        self.client_id = None
        self.game = None
        self.index = 0          # events applied so far
        self.clock_ms = 0       # the virtual host time
        self.restart()

    def restart(self) -> None:
        header = self.header
        self.game = game_from_header(header)  # version 2: revealed chance; version 1: its seed
        self.index = 0
        self.clock_ms = header.get("t0", 0)

    def host_time_ms(self) -> int:
        return self.clock_ms

    @property
    def done(self) -> bool:
        return self.index >= len(self.events)

    def next_event(self) -> dict:
        """Apply the next event to the replica and return it with its notes, as the network
        client publishes it."""
        event = self.events[self.index]
        notes = apply_event(self.game, event)
        self.index += 1
        self.clock_ms = max(self.clock_ms, event["t"])
        return {**event, "notes": notes}

    def advance(self, elapsed_ms: float) -> list[dict]:
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

    async def act(self, action) -> None:
        raise RuntimeError("This is a replay: nothing can be played here.")

    async def chat(self, text) -> None:
        raise RuntimeError("This is a replay: nobody can hear you.")

    async def leave(self) -> None:
        raise RuntimeError("This is a replay: press ctrl+q to quit.")


class ReplayApp(KismetApp):
    # Short words, so the footer fits 80 columns with the game's own keys and help.
    BINDINGS = [
        Binding("space", "toggle", "Pause", priority=True),
        Binding("n,right", "step", "Step"),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+"),
        Binding("minus", "speed(-1)", "Slower", key_display="-"),
        Binding("home", "restart", "Restart"),
        Binding("q", "quit", "Quit", show=False),
    ]

    def __init__(self, header: dict, events: list[dict], speed: float = 1.0, paused: bool = False) -> None:
        self.source = ReplaySource(header, events)
        super().__init__(self.source, address="replay")
        self.speed_index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
        self.paused = paused
        self.last_tick = time.monotonic()

    def start(self) -> None:
        self.route()
        self.set_interval(TICK_S, self.tick)

    def connection_state(self) -> tuple[str, str]:
        source = self.source
        mode = "paused" if self.paused else f"{SPEEDS[self.speed_index]:g}x"
        return "replay", f"{source.index}/{len(source.events)} events · {mode}"

    def publish(self, events: list[dict]) -> None:
        for event in events:
            self.post_message(HostMessage({"type": "event", **event}))

    def tick(self) -> None:
        now = time.monotonic()
        elapsed = (now - self.last_tick) * 1000 * SPEEDS[self.speed_index]
        self.last_tick = now
        if not self.paused:
            self.publish(self.source.advance(elapsed))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # Over the help page, space pages down (the help's own key), not play/pause.
        from .screens.help import HelpScreen

        if action == "toggle" and isinstance(self.screen, HelpScreen):
            return False
        return super().check_action(action, parameters)

    def action_toggle(self) -> None:
        self.paused = not self.paused

    def action_step(self) -> None:
        self.paused = True
        if not self.source.done:
            self.publish([self.source.next_event()])

    def action_speed(self, step: int) -> None:
        self.speed_index = max(0, min(len(SPEEDS) - 1, self.speed_index + step))

    def action_restart(self) -> None:
        self.source.restart()
        self.shown_key = None  # a fresh screen, as for a new game
        self.route()

    async def action_quit(self) -> None:
        self.exit()
