"""Random legal play for any ruleset, through the engine contract alone.

Tests, benchmarks and the simplest bots use `random_playout` to drive a game of `dice`,
`race` or `knock` to its end without knowing its rules: the candidates are every seat's
`legal_actions`, plus the host's timeout whenever `next_deadline()` is set. Choices come from
a SeededRNG (`rng.below`), never from `random`, so a playout is reproducible from its seed.

Times are stamped the way the host stamps them: they never go backwards, and a player's
action is never stamped at or past a pending deadline; when the chosen pause would reach the
deadline, the host's timeout is stamped at the deadline first (the player was too slow).

The playout is strict: `legal_actions(seat, t)` lists exactly what `apply` accepts at time t
(docs/design.md, "The engine's contract"), so the pause before a move is drawn first and the
move is chosen among what is legal at its stamp; a refusal of a listed move is a bug in the
engine and raises. When nothing is legal yet (a knock-game roll during the knock window
[D15]) and no deadline is pending, the pause passes with no event and the playout looks again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from .base import HOST, ActionT, AnyGame, Chance, Game, NoteT, ViewT
from .game_types import Event, HostAction, TimeoutAction

Move = TypeVar("Move", bound=Mapping[str, Any])

TIMEOUT: TimeoutAction = {"type": "timeout"}


def candidates(
    game: Game[ActionT, NoteT, ViewT], t_ms: int | None = None
) -> list[tuple[int, ActionT | HostAction]]:
    """Every (seat, action) a player could stamp at `t_ms` (default: now), in seat order."""
    return [
        (seat, action) for seat in range(game.seats) for action in game.legal_actions(seat, t_ms)
    ]


def pick(
    moves: list[tuple[int, Move]], rng: Chance, weights: dict[str, int] | None, default_weight: int
) -> tuple[int, Move]:
    """One of `moves`, uniformly, or in proportion to the weights of their action types."""
    if not weights:
        return moves[rng.below(len(moves))]
    sizes = [weights.get(action["type"], default_weight) for _, action in moves]
    total = sum(sizes)
    if total <= 0:
        raise RuntimeError("every move now has weight 0: nothing can be picked")
    point = rng.below(total)
    for move, size in zip(moves, sizes):
        if point < size:
            return move
        point -= size
    raise AssertionError("unreachable: point < total")


def random_playout(
    game: AnyGame,
    rng: Chance,
    max_steps: int = 100_000,
    max_gap_ms: int = 2_000,
    first_seq: int = 1,
    away_chance: int = 0,
    max_idle: int = 10_000,
    weights: dict[str, int] | None = None,
    default_weight: int = 1,
) -> list[Event]:
    """Play random legal moves until the game is finished (or `max_steps` events were
    stamped) and return the stamped log [{seq, t, seat, action}], ready for `replay`.

    `max_gap_ms`: the most time between two events (each pause is `rng.below(max_gap_ms+1)`).
    `away_chance`: if > 0, about one event in `away_chance` is the host marking a random seat
    away (or back, if it was away), which exercises the away-limits of every game.
    `weights`: action type -> whole-number weight (types not named weigh `default_weight`),
    for games where uniform choice is not a game at all: a 4-seat knock game whose three
    watchers knock at random on every roll never ends, because wrong knocks undo lays faster
    than lays are made; `weights={"knock": 1}, default_weight=24` plays one that does.
    Raises IllegalAction if the game refuses a move it listed, and RuntimeError if the game
    gets stuck (no move and no deadline for `max_idle` pauses in a row).
    """
    log: list[Event] = []
    t = game.now
    seq = first_seq
    idle = 0

    def stamp(seat: int, action: Mapping[str, Any], at: int) -> None:
        nonlocal seq
        game.apply(seat, action, at)
        log.append({"seq": seq, "t": at, "seat": seat, "action": dict(action)})
        seq += 1

    while not game.finished and len(log) < max_steps:
        deadline = game.next_deadline()
        if deadline is not None and deadline <= t:
            stamp(HOST, dict(TIMEOUT), t)
            continue
        if away_chance > 0 and rng.below(away_chance) == 0:
            who = rng.below(game.seats)
            stamp(HOST, {"type": "back" if game.away[who] else "away", "seat": who}, t)
            continue
        at = t + rng.below(max_gap_ms + 1)
        if deadline is not None and at >= deadline:
            # The host's clock reaches the deadline before any player's move arrives.
            stamp(HOST, dict(TIMEOUT), deadline)
            t = deadline
            continue
        moves = candidates(game, at)
        if deadline is not None:
            moves.append((HOST, dict(TIMEOUT)))
        if not moves:
            idle += 1
            if idle > max_idle:
                raise RuntimeError(
                    f"{game.RULESET}: no legal move and no deadline for "
                    f"{max_idle} pauses; the game is stuck"
                )
            t = max(at, t + 1)  # time passes with nothing to do
            continue
        idle = 0
        seat, action = pick(moves, rng, weights, default_weight)
        if action == TIMEOUT and deadline is not None:  # (listed only with a deadline)
            stamp(HOST, action, deadline)
            t = deadline
            continue
        stamp(seat, action, at)
        t = at
    return log
