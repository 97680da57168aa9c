"""What every game engine shares: the refusal type, the host seat, options, and the digest.

A game is state + legal actions + apply (docs/design.md, "The engine's contract"). Subclasses
implement `_act_<type>` handlers that check everything first and change state only once the
action is known to be legal, so a refused action leaves the game exactly as it was. Time
enters only as the `t_ms` of stamped events; nothing here reads a clock.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar, cast

from .game_types import (
    AwayAction,
    AwayNote,
    BackAction,
    BackNote,
    HostAction,
    LimitWhy,
    Result,
    TimeoutAction,
)
from .refusal import ILLEGAL_NOW, MALFORMED, NOT_YET, NOT_YOURS, Refusal, RefusalKind

# Plain data, the only kind a game takes in or gives out: actions, notes, options, views and
# snapshots are maps with string keys whose values are ints, strings, bools, None and lists or
# maps of them (`canonical` enforces it at run time). Actions, notes, views and results are
# declared in game_types.py and each game's <game>_types.py; `Plain` remains for options,
# snapshots and what arrives unchecked.
Plain = dict[str, Any]

# A game's own actions (its PlayerAction union), notes and view, as its <game>_types.py
# declares them.
ActionT = TypeVar("ActionT")
NoteT = TypeVar("NoteT")
ViewT = TypeVar("ViewT")
# The notes the base class makes, common to every game.
BaseNote = AwayNote | BackNote


class Chance(Protocol):
    """What a game draws its chance from: the host's SeededRNG (a stream) or a client's
    RevealedRNG (the values each event revealed), both in rules/rng.py."""

    def die(self) -> int: ...

    def below(self, n: int) -> int: ...

    def state(self) -> Plain: ...


# The seat that stamps timeouts and a player's drop and return.
HOST = -1

# Actions only the host may stamp, common to every game.
HOST_ACTIONS = ("timeout", "away", "back")


class IllegalAction(Refusal, ValueError):
    """An action (or option) the rules refuse: `words` is a sentence a player can read, `kind`
    what sort of refusal it is (rules/refusal.py). On the wire it is `error` `illegal`, or
    `bad_action` for a MALFORMED one (docs/protocol.md, "Error codes")."""

    def __init__(self, words: str, kind: RefusalKind = ILLEGAL_NOW) -> None:
        super().__init__(words, "bad_action" if kind == MALFORMED else "illegal", kind)


def check(condition: Any, words: str, kind: RefusalKind = ILLEGAL_NOW) -> None:
    """Refuse with `words` (and `kind`) unless `condition` holds."""
    if not condition:
        raise IllegalAction(words, kind)


# The leaves `canonical` takes as they are, by their exact type (a subclass, say an IntEnum
# or a float's, is looked at in full): the host digests its game at every checkpoint.
_PLAIN_LEAVES = frozenset({int, str, bool, type(None)})


def canonical(value: Any) -> bytes:
    """A byte encoding of plain data that is the same on every machine and Python version.

    Floats are refused: the state of a game holds none (docs/design.md, determinism).
    """

    def guard(obj: Any) -> Any:
        if isinstance(obj, float):
            raise TypeError("floats have no place in game state")
        if isinstance(obj, dict):
            for key, item in obj.items():
                if not isinstance(key, str):
                    raise TypeError("state keys must be strings")
                if type(item) not in _PLAIN_LEAVES:  # (most are: no call for them)
                    guard(item)
        elif isinstance(obj, (list, tuple)):
            for item in obj:
                if type(item) not in _PLAIN_LEAVES:
                    guard(item)
        elif not (obj is None or isinstance(obj, (bool, int, str))):
            raise TypeError(f"{type(obj).__name__} cannot be part of game state")
        return obj

    guard(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def int_option(options: Plain, name: str, default: int, low: int, high: int, what: str) -> int:
    """Read one whole-number table option within [low, high], or refuse in plain words."""
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction(f"{what} must be a whole number.", MALFORMED)
    if not low <= value <= high:
        raise IllegalAction(f"{what} must be between {low} and {high}.", MALFORMED)
    return value


def whole_number_options(
    options: Plain,
    spec: dict[str, tuple[int, int, int, str]],
    ruleset: str,
    others: Iterable[str] = (),
) -> dict[str, int]:
    """The options named in `spec` (name -> (default, low, high, what)) read with int_option,
    after refusing any name that is neither in `spec` nor in `others` (read by the caller)."""
    check_known_options(options, set(spec) | set(others), ruleset)
    return {
        name: int_option(options, name, default, low, high, what)
        for name, (default, low, high, what) in spec.items()
    }


def check_known_options(options: Plain, known: Iterable[str], ruleset: str) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise IllegalAction(
            f"The {ruleset} game has no option called {', '.join(unknown)}.", MALFORMED
        )


class Game(Generic[ActionT, NoteT, ViewT]):
    """The base of the three engines. Subclasses set RULESET, MIN_SEATS and MAX_SEATS, and
    name their declared actions, notes and view: `DiceGame(Game[PlayerAction, Note, View])`."""

    RULESET = ""
    MIN_SEATS = 1
    MAX_SEATS = 8

    def __init__(self, seats: int, options: Plain, rng: Chance, start_ms: int = 0):
        self.seats = seats
        self.options = options
        self.rng = rng
        # Host time the game began (the header's "t0"); deadlines before the first event count
        # from it. Then: t_ms of the last applied event.
        self.now = start_ms
        self.away = [False] * seats
        # Away but connected: played for at once, not after the away-limit [D31].
        self.idle = [False] * seats

    # ---- the contract -------------------------------------------------------------------
    def apply(self, seat: int, action: ActionT | HostAction, t_ms: int) -> list[NoteT | BaseNote]:
        """Apply one stamped action, or raise IllegalAction and change nothing.

        `action` is one of the game's declared actions, as protocol/actions.py `build_action`
        builds it at the edge: its fields are the declared ones, each of its declared kind and
        range, so the handlers judge only what the state decides (whose turn, which cards lie
        where). Returns notes: plain dicts ({"type": ..., ...}) saying what happened, in order,
        for move logs and bots. Which notes a game emits is documented in its module.
        """
        kind = cast("Plain", action)["type"]
        check(
            isinstance(seat, int) and not isinstance(seat, bool),
            "The seat must be a number.",
            MALFORMED,
        )
        if not (seat == HOST or 0 <= seat < self.seats):  # (words made only when they are said)
            raise IllegalAction(f"There is no seat {seat} at this table.", MALFORMED)
        check(
            isinstance(t_ms, int) and not isinstance(t_ms, bool),
            "The time stamp must be whole milliseconds.",
            MALFORMED,
        )
        check(t_ms >= self.now, "That event is stamped earlier than the one before it.")
        if kind in HOST_ACTIONS:
            check(seat == HOST, "Only the host stamps timeouts and arrivals.", NOT_YOURS)
        else:
            check(seat != HOST, "The host does not play.", NOT_YOURS)
        # (Each handler takes its own action TypedDict: the type names which one it is.)
        handler: Callable[[int, Any, int], list[NoteT | BaseNote] | None] | None = getattr(
            self, "_act_" + kind, None
        )
        if handler is None:  # another game's action: the edge built it for its own ruleset
            raise IllegalAction(f"There is no action called '{kind}' in this game.", MALFORMED)
        notes = handler(seat, action, t_ms)
        self.now = t_ms
        return notes if notes is not None else []

    def legal_actions(self, seat: int, t_ms: int | None = None) -> list[ActionT | HostAction]:
        """Exactly the actions `apply(seat, action, t_ms)` accepts now, each once, in its
        plain spelling (docs/design.md, "The engine's contract").

        `t_ms` is the time the action would be stamped at; None means the time of the last
        event (`now`). It matters where the rules depend on time: nothing is accepted stamped
        before `now`, the host's timeout only once the deadline has passed, and a knock-game
        roll only after the knock window. For HOST the list is the timeout when due, and
        `away` / `back` for every seat that is not away / is away, until the game is over.
        `apply` also accepts a few other spellings of the same moves (a dice hold in any
        order, a grab without its card id, a pre-lay under a secret commitment); those are
        not listed again.
        """
        t = self.now if t_ms is None else t_ms
        if t < self.now:
            return []
        if seat == HOST:
            if self.finished:
                return []
            deadline = self.next_deadline()
            host: list[ActionT | HostAction] = (
                [{"type": "timeout"}] if deadline is not None and t >= deadline else []
            )
            host += [self._away_or_back(s) for s in range(self.seats)]
            return host
        # (a list of the game's actions is a list of actions or host actions: nobody adds to it)
        return cast("list[ActionT | HostAction]", self._player_actions(seat, t))

    def _away_or_back(self, seat: int) -> AwayAction | BackAction:
        if self.away[seat]:
            return {"type": "back", "seat": seat}
        return {"type": "away", "seat": seat}

    def _player_actions(self, seat: int, t_ms: int) -> list[ActionT]:
        """legal_actions for a player's seat at `t_ms` (never earlier than `now`)."""
        raise NotImplementedError

    def view(self, seat: int | None) -> ViewT:
        raise NotImplementedError

    def snapshot(self) -> Plain:
        """The whole state as plain data (no floats); chance only as `rng.state()`, the number
        of values drawn, so the host (a stream) and a client (revealed values) agree."""
        raise NotImplementedError

    def digest(self) -> str:
        return hashlib.sha256(canonical(self.snapshot())).hexdigest()

    def next_deadline(self) -> int | None:
        """The host time (ms) at which the host must stamp a timeout, or None."""
        return None

    def result(self) -> Result | None:
        """None while the game runs; then {"scores": [...], "winners": [seats], ...}."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        return self.result() is not None

    # ---- what every game does the same way ------------------------------------------------
    def _act_away(self, seat: int, action: AwayAction, t_ms: int) -> list[NoteT | BaseNote]:
        who = self._target_seat(action)
        idle = action.get("idle", False)
        check(not self.finished, "The game is over.")
        check(not self.away[who], f"Seat {who} is already away.")
        self.away[who] = True
        self.idle[who] = idle
        self._on_away(who, t_ms)
        note: AwayNote = {"type": "away", "seat": who}
        if idle:
            note["idle"] = True
        return [note]

    def _act_back(self, seat: int, action: BackAction, t_ms: int) -> list[NoteT | BaseNote]:
        who = self._target_seat(action)
        check(not self.finished, "The game is over.")
        check(self.away[who], f"Seat {who} is not away.")
        self.away[who] = False
        self.idle[who] = False
        self._on_back(who, t_ms)
        return [{"type": "back", "seat": who}]

    def _act_timeout(self, seat: int, action: TimeoutAction, t_ms: int) -> list[NoteT]:
        deadline = self.next_deadline()
        if deadline is None:
            raise IllegalAction("Nothing is waiting on a deadline.")
        check(t_ms >= deadline, "Too early: the deadline has not passed yet.", NOT_YET)
        return self._on_timeout(t_ms)

    def _target_seat(self, action: AwayAction | BackAction) -> int:
        """The seat an away or back event names, once it is a seat at this table (the
        declaration allows any seat of the largest table)."""
        who = action["seat"]
        if not who < self.seats:
            raise IllegalAction("Away and back events must name a seat at the table.", MALFORMED)
        return who

    def _away_limit(self, seat: int) -> int:
        """How long an away seat's turn waits before the host plays for it: the away-limit,
        or nothing for an idle seat [D31]."""
        return 0 if self.idle[seat] else int(self.options["away_limit_ms"])

    def _limit_why(
        self, seat: int, turn_deadline: int | None, away_deadline: int | None
    ) -> LimitWhy:
        """Which limit made the host play for `seat`: the earlier of its two deadlines."""
        if away_deadline is not None and (turn_deadline is None or away_deadline <= turn_deadline):
            return "idle" if self.idle[seat] else "away_limit"
        return "turn_limit"

    def _idle_state(self) -> Plain:
        """The idle marks for a snapshot: only while a seat is idle, so the digest of a game
        that never had one is what it was before idle seats existed."""
        return {"idle": list(self.idle)} if any(self.idle) else {}

    def _on_away(self, seat: int, t_ms: int) -> None:
        """Hook: a player dropped. Games restart the away-limit clock here if it is their turn."""

    def _on_back(self, seat: int, t_ms: int) -> None:
        """Hook: a player returned."""

    def _on_timeout(self, t_ms: int) -> list[NoteT]:
        raise NotImplementedError


# A game of any ruleset, where the ruleset is known only at run time (new_game, replay).
AnyGame = Game[Any, Any, Any]
