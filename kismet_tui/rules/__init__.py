"""The rules engine: one pure, deterministic module per game, and what they share.

Standard library only: no clock, no I/O, no asyncio, no Textual. The same seed, seats,
options and stamped events give the same state, and the same `digest()`, everywhere
(docs/design.md, "The engine's contract").

    >>> game = new_game("dice", 3, seed=b"table 1", options={})
    >>> seat = game.view(None)["current"]  # the roll-off chose who starts
    >>> notes = game.apply(seat, {"type": "roll"}, 1000)
    >>> notes[0]["type"], len(notes[0]["dice"])
    ('rolled', 5)
    >>> {"type": "score", "box": "yarborough"} in game.legal_actions(seat)
    True
    >>> game.apply((seat + 1) % 3, {"type": "roll"}, 1200)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    kismet_tui.rules.base.IllegalAction: Not your turn: seat ... is rolling.
    >>> header = {"ruleset": "dice", "seats": 3, "seed": b"table 1", "options": {}}
    >>> event = {"seq": 1, "t": 1000, "seat": seat, "action": {"type": "roll"}}
    >>> replay(header, [event]).digest() == game.digest()
    True
"""

from __future__ import annotations

import importlib

from .base import HOST, Game, IllegalAction, canonical
from .rng import ScriptedRNG, SeededRNG, seed_bytes

# ruleset id -> module that defines GAME (the Game subclass) and normalize_options(options).
RULESETS = {
    "dice": "kismet_tui.rules.dice",
    "race": "kismet_tui.rules.race",
    "knock": "kismet_tui.rules.knock",
}

__all__ = [
    "HOST", "Game", "IllegalAction", "RULESETS", "ScriptedRNG", "SeededRNG", "canonical",
    "game_module", "new_game", "normalize_options", "replay", "seed_bytes",
]


def game_module(ruleset: str):
    if ruleset not in RULESETS:
        known = ", ".join(sorted(RULESETS))
        raise IllegalAction(f"There is no game called '{ruleset}'. The games are: {known}.")
    return importlib.import_module(RULESETS[ruleset])


def normalize_options(ruleset: str, options: dict | None) -> dict:
    """The table options of a game with every default filled in, or IllegalAction saying why."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise IllegalAction("Options must be a map of names to values.")
    return game_module(ruleset).normalize_options(dict(options))


def new_game(ruleset: str, seats, seed, options: dict | None = None, rng=None,
             start_ms: int = 0) -> Game:
    """A new game. `seats` is the number of seats (or a list, one entry per seat).

    `rng` defaults to the documented stream built from `seed`; tests pass a ScriptedRNG.
    `start_ms` is the host time the game began (the header's "t0"): the first deadlines, such
    as the race game's first countdown, count from it.
    """
    module = game_module(ruleset)
    count = seats if isinstance(seats, int) else len(seats)
    cls = module.GAME
    if not cls.MIN_SEATS <= count <= cls.MAX_SEATS:
        raise IllegalAction(
            f"{ruleset} is for {cls.MIN_SEATS} to {cls.MAX_SEATS} players, not {count}."
        )
    opts = normalize_options(ruleset, options)
    if isinstance(start_ms, bool) or not isinstance(start_ms, int) or start_ms < 0:
        raise IllegalAction("The start time must be whole milliseconds, not negative.")
    return cls(seats=count, options=opts, rng=rng if rng is not None else SeededRNG(seed),
               start_ms=start_ms)


def replay(header: dict, events) -> Game:
    """Rebuild a game from its log: header {ruleset, seats, seed, options, t0} and stamped
    events ({seq, t, seat, action}) in sequence order. Raises IllegalAction if the log is not
    legal."""
    game = new_game(header["ruleset"], header["seats"], header["seed"], header.get("options"),
                    start_ms=header.get("t0", 0))
    for event in events:
        game.apply(event["seat"], event["action"], event["t"])
    return game
