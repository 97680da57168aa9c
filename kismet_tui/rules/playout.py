"""Random legal play for any ruleset, through the engine contract alone.

Tests, benchmarks and the simplest bots use `random_playout` to drive a game of `dice`,
`race` or `knock` to its end without knowing its rules: the candidates are every seat's
`legal_actions`, plus the host's timeout whenever `next_deadline()` is set. Choices come from
a SeededRNG (`rng.below`), never from `random`, so a playout is reproducible from its seed.

Times are stamped the way the host stamps them: they never go backwards, and a player's
action is never stamped at or past a pending deadline; when the chosen pause would reach the
deadline, the host's timeout is stamped at the deadline first (the player was too slow).

`legal_actions` says which moves exist, not always when they may be made: a game may refuse a
listed move as too early (the knock game's roll during the knock window [D15]). Such a refusal
is not logged; the chosen pause passes and the playout picks again. `strict=True` makes any
refusal of a listed move an error instead (for engines whose lists are exact, like dice).
"""

from __future__ import annotations

from .base import HOST, Game, IllegalAction

TIMEOUT = {"type": "timeout"}


def candidates(game: Game) -> list[tuple[int, dict]]:
    """Every (seat, action) a player could send now, in seat order."""
    return [(seat, action) for seat in range(game.seats) for action in game.legal_actions(seat)]


def pick(moves: list[tuple[int, dict]], rng, weights: dict[str, int] | None,
         default_weight: int) -> tuple[int, dict]:
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


def random_playout(game: Game, rng, max_steps: int = 100_000, max_gap_ms: int = 2_000,
                   first_seq: int = 1, away_chance: int = 0, strict: bool = False,
                   max_refusals: int = 10_000, weights: dict[str, int] | None = None,
                   default_weight: int = 1) -> list[dict]:
    """Play random legal moves until the game is finished (or `max_steps` events were
    stamped) and return the stamped log [{seq, t, seat, action}], ready for `replay`.

    `max_gap_ms`: the most time between two events (each pause is `rng.below(max_gap_ms+1)`).
    `away_chance`: if > 0, about one event in `away_chance` is the host marking a random seat
    away (or back, if it was away), which exercises the away-limits of every game.
    `weights`: action type -> whole-number weight (types not named weigh `default_weight`),
    for games where uniform choice is not a game at all: a 4-seat knock game whose three
    watchers knock at random on every roll never ends, because wrong knocks undo lays faster
    than lays are made; `weights={"knock": 1}, default_weight=24` plays one that does.
    Raises RuntimeError if the game gets stuck (no move and no deadline, or `max_refusals`
    listed moves refused in a row).
    """
    log: list[dict] = []
    t = game.now
    seq = first_seq
    refusals = 0

    def stamp(seat: int, action: dict, at: int) -> None:
        nonlocal seq
        game.apply(seat, action, at)
        log.append({"seq": seq, "t": at, "seat": seat, "action": action})
        seq += 1

    while not game.finished and len(log) < max_steps:
        deadline = game.next_deadline()
        if deadline is not None and deadline <= t:
            stamp(HOST, dict(TIMEOUT), t)
            continue
        moves = candidates(game)
        if deadline is not None:
            moves.append((HOST, dict(TIMEOUT)))
        if away_chance > 0 and rng.below(away_chance) == 0:
            who = rng.below(game.seats)
            moves = [(HOST, {"type": "back" if game.away[who] else "away", "seat": who})]
        if not moves:
            raise RuntimeError(f"{game.RULESET}: no legal move and no deadline; the game is stuck")
        seat, action = pick(moves, rng, weights, default_weight)
        if action == TIMEOUT:
            stamp(HOST, action, max(t, deadline))
            t = max(t, deadline)
            continue
        at = t + rng.below(max_gap_ms + 1)
        if deadline is not None and at >= deadline:
            # The host's clock reaches the deadline before this player's move arrives.
            stamp(HOST, dict(TIMEOUT), deadline)
            t = deadline
            continue
        try:
            stamp(seat, action, at)
        except IllegalAction as refusal:
            if strict or seat == HOST:
                raise
            refusals += 1
            if refusals > max_refusals:
                raise RuntimeError(f"{game.RULESET}: {refusals} listed moves refused in a row, "
                                   f"the last: {refusal.reason}") from refusal
        else:
            refusals = 0
        t = at
    return log
