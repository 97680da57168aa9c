"""Dice games played through the engine by the bots' own policies, written as log files the
way the host writes them (header, stamped events, end record), for the review's tests."""

from __future__ import annotations

from pathlib import Path

from kismet_tui.bots.dice_levels import DicePolicy
from kismet_tui.rules import new_game
from protocol.gamelog import record_bytes


def play_dice(
    levels: list[str], seed: int, names: list[str] | None = None
) -> tuple[dict, list[dict]]:
    """(header, events) of a whole dice game, each seat played by a bot of its level (the
    hard bot from the optimal table the test has put in place)."""
    names = names or [f"Bot {seat + 1}" for seat in range(len(levels))]
    game = new_game("dice", names, seed)
    header = {"ruleset": "dice", "seats": names, "seed": seed, "options": {}, "t0": 1_000}
    policies = [DicePolicy(level, seat, seed) for seat, level in enumerate(levels)]
    events: list[dict] = []
    t = 1_000
    while not game.finished:
        seat = game.view(None)["current"]
        decided = policies[seat].decide(game, seat, t)
        assert decided is not None
        t += 100
        game.apply(seat, decided[1], t)
        events.append({"seq": len(events) + 1, "t": t, "seat": seat, "action": decided[1]})
    return header, events


def write_log(path: Path, header: dict, events: list[dict], finished: bool = True) -> Path:
    """The game as a log file at `path` (its end record only when the game is over)."""
    from kismet_tui.rules import replay

    data = record_bytes({"kind": "header", "header": header, "table": 1})
    data += b"".join(record_bytes({"kind": "event", **event}) for event in events)
    if finished:
        data += record_bytes({"kind": "end", "result": replay(header, events).result()})
    path.write_bytes(data)
    return path
