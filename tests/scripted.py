"""A client with no network for the snapshot tests: a game replica built from a fixed seed
and a fixed, seeded playout, fixed names and a frozen host clock, so every picture of a
screen is the same on every run, in any order, under any load.

    client = ScriptedClient.at("race", ["Ana", "Bot 1 (easy)"], until=grabbing_with_a_grab)
    app = KismetApp(client, address="this computer")
"""

from __future__ import annotations

import asyncio

from kismet_tui.rules import SeededRNG, new_game
from kismet_tui.rules.playout import random_playout

T0 = 1_000_000
PLAYOUT_STEPS = 100_000  # the most events of a playout (random_playout's own limit)
OPTIONS = {
    "dice": {},
    "race": {"countdown_ms": 3000, "round_limit_ms": 10000, "reveal_ms": 2000},
    "knock": {"knock_window_ms": 1500},
}
# The playouts are made without turn limits, so they stay the moves they were before every
# turn had a limit [D31] (a limit makes the host's timeout one more random choice); the
# replica plays them under the default limits, whose clocks the pictures then show.
PLAYOUT_OPTIONS = {
    ruleset: {**options, "turn_limit_ms": 0} if ruleset != "race" else options
    for ruleset, options in OPTIONS.items()
}


def table_for(ruleset: str, names: list[str], state: str = "playing", ready: tuple = ()) -> dict:
    return {
        "id": 1,
        "ruleset": ruleset,
        "state": state,
        "owner": 1,
        "games_played": 0,
        "options": OPTIONS[ruleset],
        "max_seats": 8,
        "spectators": [],
        "seats": [
            {
                "name": name,
                "client_id": index + 1,
                "bot": "easy" if name.startswith("Bot") else None,
                "ready": name in ready or name.startswith("Bot"),
                "connected": True,
                "away": False,
            }
            for index, name in enumerate(names)
        ],
    }


class ScriptedClient:
    """Stands where kismet_tui.net.Client stands (a kismet_tui.source.GameSource); sends go
    nowhere."""

    state = "connected"
    live = True
    client_id = 1
    verification = None

    def __init__(
        self,
        header: dict | None,
        events: list[dict],
        table: dict | None,
        tables: list[dict] | None = None,
        clock_ms: int = T0,
    ) -> None:
        self.header = header
        self.events = events
        self.table = table
        self.tables = tables or []
        self.seat = 0 if header is not None else None
        self.clock_ms = clock_ms
        self.game = None
        self.notes: list[
            list[dict]
        ] = []  # the replica's notes per event, as the real client keeps them
        if header is not None:
            self.game = new_game(
                header["ruleset"],
                header["seats"],
                header["seed"],
                header["options"],
                start_ms=header["t0"],
            )
            self.notes = [
                self.game.apply(event["seat"], event["action"], event["t"]) for event in events
            ]

    @classmethod
    def at(
        cls, ruleset: str, names: list[str], seed: bytes = b"snapshot", until=None
    ) -> ScriptedClient:
        """The game after the first events of a seeded playout for which `until(game)` holds
        (None: the whole game, to its end)."""
        header = {
            "ruleset": ruleset,
            "seats": names,
            "seed": seed,
            "options": OPTIONS[ruleset],
            "t0": T0,
        }

        def playout(steps: int) -> list:
            full = new_game(ruleset, names, seed, PLAYOUT_OPTIONS[ruleset], start_ms=T0)
            return random_playout(full, SeededRNG(seed + b"-play"), max_steps=steps, max_gap_ms=400)

        # The playout's first events, more each time, until `until` holds (the first N events
        # of a playout are the same whatever its length: a knock game may run 100,000 events
        # before it ends, seconds of work the position does not need).
        steps = 256 if until is not None else PLAYOUT_STEPS
        while True:
            events = playout(steps)
            count = len(events)
            if until is None:
                break
            probe = new_game(ruleset, names, seed, PLAYOUT_OPTIONS[ruleset], start_ms=T0)
            for index, event in enumerate(events):
                probe.apply(event["seat"], event["action"], event["t"])
                if until(probe):
                    count = index + 1
                    break
            else:
                if len(events) < steps or steps >= PLAYOUT_STEPS:
                    raise AssertionError("the playout never reached the wanted position")
                steps = min(steps * 8, PLAYOUT_STEPS)
                continue
            break
        events = events[:count]
        clock = events[-1]["t"] + 250 if events else T0  # frozen: countdowns never move
        return cls(header, events, table_for(ruleset, names), clock_ms=clock)

    def host_time_ms(self) -> int:
        return self.clock_ms

    def applied_events(self) -> list[dict]:
        return self.events

    def applied_notes(self) -> list[list[dict]]:
        return self.notes

    async def messages(self):
        yield {"type": "welcome"}
        if self.table is not None:
            yield {"type": "table", "table": self.table}
        yield {"type": "tables", "tables": self.tables}
        await asyncio.Event().wait()  # a host with nothing more to say

    # Everything the screens may send: taken, and nothing happens.
    def act_nowait(self, action) -> None:
        pass

    def here_nowait(self) -> None:
        pass

    async def _nothing(self, *args, **kwargs) -> None:
        return None

    act = chat = ready = start = leave = list_tables = prelay = join_table = mute_watchers = (
        _nothing
    )
    create_table = remove = close = hand_to_bot = _nothing

    async def records(self, view, ruleset=None, player=None, page=0) -> dict:
        return canned_records(view, ruleset, player, page)


def canned_records(view, ruleset=None, player=None, page=0) -> dict:
    """A `records` answer as a host with a few evenings of games gives it (fixed dates)."""
    day = 1_796_000_000_000
    seats = [
        {"name": "Ana", "score": 9, "won": True, "player": "a" * 32},
        {"name": "Bo Longername-Jones", "score": 4, "won": False, "player": "b" * 32},
        {"name": "Bot 1 (easy)", "score": 2, "won": False, "player": "bot:easy"},
    ]
    game = {
        "game": 7,
        "ruleset": "race",
        "ended": day,
        "log": "20261201-201500-table3-race.kismet",
        "seats": seats,
    }
    answer = {
        "type": "records",
        "view": view,
        "ruleset": ruleset,
        "page": page,
        "me": "a" * 32,
        "more": False,
    }
    if view == "leaderboard":
        names = ["Ana", "Bo Longername-Jones", "Bot 1 (easy)", "Cy"]
        rows = [
            {
                "player": s,
                "name": n,
                "bot": n.startswith("Bot"),
                "rating": 1080 - 37 * i,
                "games": 12 - i,
                "wins": 6 - i,
                "best": 11 - i,
            }
            for i, (n, s) in enumerate(zip(names, ["a" * 32, "b" * 32, "bot:easy", "c" * 32]))
        ]
        return {**answer, "rows": rows, "more": True}
    if view == "best":
        return {
            **answer,
            "rows": [
                {
                    **game,
                    "ruleset": "dice",
                    "seats": [],
                    "name": "Ana",
                    "score": 312 - 9 * i,
                    "ended": day - i * 86_400_000,
                }
                for i in range(3)
            ],
        }
    if view == "player":
        standings = [
            {"ruleset": "race", "rating": 1080, "games": 12, "wins": 6, "best": 11, "average": 7},
            {"ruleset": "dice", "rating": 1000, "games": 3, "wins": 3, "best": 312, "average": 295},
        ]
        rows = [
            {**game, "score": 9, "won": True, "best": False, "change": 23},
            {
                **game,
                "ended": day - 600_000,
                "score": 4,
                "won": False,
                "best": False,
                "change": -11,
            },
        ]
        return {
            **answer,
            "found": True,
            "player": "a" * 32,
            "name": "Ana",
            "bot": False,
            "standings": standings,
            "rows": rows,
        }
    return {**answer, "rows": [game, {**game, "ended": day - 600_000}]}
