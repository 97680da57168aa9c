"""Bots playing a whole game against each other in one process, no network: the host's part
(stamping times, timeouts at deadlines, knock's commit-reveal) done by a small event loop.

For tests and benchmarks of the bot levels. Over TCP the runner (runner.py) does the same
through a real host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kismet_tui.rules import HOST, IllegalAction, new_game
from kismet_tui.rules.base import AnyGame
from kismet_tui.rules.game_types import Event
from kismet_tui.rules.knock import KnockGame, prelay_commitment

from .decision import BotAction, Policy

SALT = "5a17"
MAX_REFUSED = 200  # a policy that keeps being refused is a bug, not a slow player


def play_local(
    ruleset: str,
    policies: Sequence[Policy[Any]],
    seed: bytes | int | str,
    options: dict[str, Any] | None = None,
    max_events: int = 20_000,
) -> tuple[AnyGame, list[Event], list[tuple[int, Mapping[str, Any], str]]]:
    """Play until the game ends; returns (game, stamped log, refused) where refused lists
    (seat, action, reason) for every action the engine refused. Each policy answers
    decide(game, seat, now_ms); the earliest wanted action is stamped first, and the host's
    timeout is stamped when a deadline comes before any player's action."""
    game = new_game(ruleset, len(policies), seed, options)
    log: list[Event] = []
    prelays: dict[int, list[int]] = {}
    refused: list[tuple[int, Mapping[str, Any], str]] = []
    now = 0

    def stamp(seat: int, action: Mapping[str, Any], at: int) -> None:
        game.apply(seat, action, at)
        log.append({"seq": len(log) + 1, "t": at, "seat": seat, "action": dict(action)})

    while not game.finished:
        if len(log) >= max_events:
            raise RuntimeError(f"{ruleset}: no end after {max_events} events")
        wanted: list[tuple[int, int, BotAction]] = []
        for seat, policy in enumerate(policies):
            if ruleset == "knock" and _reveal_due(game, seat, prelays):
                wanted.append((now, seat, {"type": "reveal", "cards": prelays[seat], "salt": SALT}))
                continue
            choice = policy.decide(game, seat, now)
            if choice is not None:
                delay, action = choice
                wanted.append((now + max(0, int(delay)), seat, action))
        deadline = game.next_deadline()
        wanted.sort(key=lambda w: (w[0], w[1]))
        if deadline is not None and (not wanted or wanted[0][0] >= deadline):
            now = max(now, deadline)
            stamp(HOST, {"type": "timeout"}, now)
            continue
        if not wanted:
            raise RuntimeError(f"{ruleset}: nobody can move and nothing is due")
        at, seat, action = wanted[0]
        now = at
        if action["type"] == "prelay" and "cards" in action:
            prelays[seat] = list(action["cards"])
            action = {"type": "prelay", "commit": prelay_commitment(prelays[seat], SALT)}
        try:
            stamp(seat, action, now)
        except IllegalAction as refusal:
            refused.append((seat, action, refusal.words))
            if len(refused) > MAX_REFUSED:
                raise RuntimeError(
                    f"{ruleset}: a bot keeps sending refused actions: {refused[-1]}"
                ) from refusal
            now += 50  # e.g. a roll a moment too early: ask again a little later
    return game, log, refused


def _reveal_due(game: AnyGame, seat: int, prelays: dict[int, list[int]]) -> bool:
    return (
        isinstance(game, KnockGame)
        and game.phase == "prelay_reveal"
        and seat in prelays
        and game.commits[seat] is not None
        and game.reveals[seat] is None
        and not game.away[seat]
    )
