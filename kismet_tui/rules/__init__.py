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

A logged game (protocol version 2) carries no seed: its header has the creation draws and
each event the values it drew (`chance`), which `replay` feeds to a RevealedRNG. A version-1
header still carries `seed` and replays from the seeded stream. `verify` (verify.py) redraws
a finished version-2 game from its revealed `server_seed`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

from .base import (
    HOST,
    ActionT,
    AnyGame,
    BaseNote,
    Chance,
    Game,
    IllegalAction,
    NoteT,
    Plain,
    ViewT,
    canonical,
)
from .game_types import LogHeader
from .refusal import MALFORMED, Refusal, RefusalKind
from .rng import ChanceError, RevealedRNG, ScriptedRNG, SeededRNG, seed_bytes

# The games, declared once: ruleset id -> the module that defines GAME (the Game subclass)
# and normalize_options(options), in the order every list of the games shows them (the new
# table's menu, the help, the records' tabs). The wire, the app and the bots read it from here;
# what must stay written out per game (a menu's line, a bot's policy, the docs) is checked
# against it by tests/test_games_declared_once.py.
RULESETS = {
    "dice": "kismet_tui.rules.dice",
    "race": "kismet_tui.rules.race",
    "knock": "kismet_tui.rules.knock",
}
GAMES: tuple[str, ...] = tuple(RULESETS)  # the ruleset ids, in that order

__all__ = [
    "HOST",
    "ChanceError",
    "GAMES",
    "Game",
    "IllegalAction",
    "RULESETS",
    "Refusal",
    "RefusalKind",
    "RevealedRNG",
    "ScriptedRNG",
    "SeededRNG",
    "apply_event",
    "canonical",
    "game_from_header",
    "game_module",
    "new_game",
    "normalize_options",
    "replay",
    "seed_bytes",
]


class GameModule(Protocol):
    """What each module named in RULESETS defines."""

    GAME: type[AnyGame]

    def normalize_options(self, options: Plain) -> Plain: ...


def game_module(ruleset: str) -> GameModule:
    if ruleset not in RULESETS:
        known = ", ".join(sorted(RULESETS))
        raise IllegalAction(
            f"There is no game called '{ruleset}'. The games are: {known}.", MALFORMED
        )
    return cast(GameModule, importlib.import_module(RULESETS[ruleset]))


def normalize_options(ruleset: str, options: Plain | None) -> Plain:
    """The table options of a game with every default filled in, or IllegalAction saying why."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise IllegalAction("Options must be a map of names to values.", MALFORMED)
    return game_module(ruleset).normalize_options(dict(options))


def new_game(
    ruleset: str,
    seats: int | Sequence[object],
    seed: bytes | int | str | None,
    options: Plain | None = None,
    rng: Chance | None = None,
    start_ms: int = 0,
) -> AnyGame:
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
            f"{ruleset} is for {cls.MIN_SEATS} to {cls.MAX_SEATS} players, not {count}.", MALFORMED
        )
    opts = normalize_options(ruleset, options)
    if isinstance(start_ms, bool) or not isinstance(start_ms, int) or start_ms < 0:
        raise IllegalAction("The start time must be whole milliseconds, not negative.", MALFORMED)
    if rng is None:
        if seed is None:
            raise TypeError("a seed is bytes, an int or a str")  # (as SeededRNG(None) says)
        rng = SeededRNG(seed)
    return cls(seats=count, options=opts, rng=rng, start_ms=start_ms)


def game_from_header(header: LogHeader, rng: Chance | None = None) -> AnyGame:
    """A game as its header starts it. Version 2 (no `seed`): the creation draws come from the
    header's `chance`, through a RevealedRNG. Version 1: from the seeded stream. `rng` (the
    host's secret stream, a verifier's redraw) replaces either."""
    if rng is None:
        rng = SeededRNG(header["seed"]) if "seed" in header else RevealedRNG()
    revealed = rng if isinstance(rng, RevealedRNG) else None
    if revealed is not None:
        revealed.feed(header.get("chance"))
    game = new_game(
        header["ruleset"],
        header["seats"],
        header.get("seed"),
        header.get("options"),
        rng=rng,
        start_ms=header.get("t0", 0),
    )
    if revealed is not None:
        revealed.done()
    return game


def apply_event(
    game: Game[ActionT, NoteT, ViewT], event: Mapping[str, Any]
) -> list[NoteT | BaseNote]:
    """Apply one stamped event ({seq, t, seat, action, chance?}) to a replica: a RevealedRNG
    gets the event's chance first and must use all of it. Returns the engine's notes. The
    action is one the edge built (protocol/actions.py `build_event`): the engine does not
    check its fields again."""
    rng = game.rng
    if type(rng) is RevealedRNG:  # (the common case for a client: keep it cheap)
        rng.feed(event.get("chance"))
        notes = game.apply(event["seat"], event["action"], event["t"])
        rng.done()
        return notes
    return game.apply(event["seat"], event["action"], event["t"])


def replay(header: LogHeader, events: Iterable[Mapping[str, Any]]) -> AnyGame:
    """Rebuild a game from its log: the header ({ruleset, seats, options, t0} and either the
    version-2 `chance` or the version-1 `seed`) and stamped events ({seq, t, seat, action,
    chance?}) in sequence order, their actions built at the edge (`build_event`). Raises
    IllegalAction (ChanceError for chance that does not fit) if the log is not legal."""
    game = game_from_header(header)
    for event in events:
        apply_event(game, event)
    return game
