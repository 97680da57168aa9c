"""Finished game logs written straight to a folder, as a host writes them, for the records'
tests and benchmark: a header with `players`, events, and an end record with the result."""

from __future__ import annotations

from pathlib import Path

from protocol.gamelog import record_bytes


def write_finished_log(
    folder: Path,
    name: str,
    ruleset: str,
    seats: list[str],
    players: list[str | None],
    scores: list[int],
    t0: int,
    t_end: int,
    table: int = 1,
    finished: bool = True,
) -> Path:
    """One finished log (the winners: the seats with the best score); with `finished` False,
    a log whose game never ended (no end record)."""
    best = max(scores)
    header = {"ruleset": ruleset, "seats": seats, "options": {}, "t0": t0, "players": players}
    result = {
        "scores": scores,
        "winners": [seat for seat, score in enumerate(scores) if score == best],
    }
    path = folder / name
    path.write_bytes(
        record_bytes({"kind": "header", "header": header, "table": table})
        + record_bytes(
            {
                "kind": "event",
                "seq": 1,
                "t": t_end,
                "seat": -1,
                "action": {"type": "away", "seat": 0},
            }
        )
        + (record_bytes({"kind": "end", "result": result}) if finished else b"")
    )
    return path
