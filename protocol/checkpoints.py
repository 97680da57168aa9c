"""When a client sends its digest, so the host can have its own ready at the same points.

Clients send `digest` after applying event `seq` when `is_checkpoint` says so: every
DIGEST_EVERY events, when a round or the game ends. The host computes its digest at exactly
these events as it stamps them, so checking an honest client never replays the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .limits import DIGEST_EVERY

# Engine notes that end a round, a secret pre-lay or the game (see the engines' docstrings).
CHECKPOINT_NOTES = frozenset({"round_ended", "round_over", "prelays_done", "game_over"})


def is_checkpoint(
    seq: int, notes: Iterable[Mapping[str, Any]], finished: bool, every: int = DIGEST_EVERY
) -> bool:
    return (
        seq % every == 0 or finished or any(note.get("type") in CHECKPOINT_NOTES for note in notes)
    )
