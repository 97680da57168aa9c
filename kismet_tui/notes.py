"""The engine's notes for each event, which the client library does not pass on.

The client applies each stamped event to its replica and publishes the bare event; the notes
that `apply` returned (what happened, in words a move log can use) are dropped. This tracker
keeps a second replica fed from the same messages, only to recover those notes. It costs one
extra `apply` per event, which is microseconds; if the client ever publishes notes itself,
this module can go.
"""

from __future__ import annotations

from .rules import IllegalAction, replay


class NoteTracker:
    def __init__(self) -> None:
        self.game = None
        self.next_seq = None  # None: the first event after an empty log, whatever its number

    def reset(self, header: dict, events: list[dict]) -> None:
        try:
            self.game = replay(header, events)
            self.next_seq = events[-1]["seq"] + 1 if events else None
        except (IllegalAction, KeyError, TypeError):
            self.game = None

    def clear(self) -> None:
        self.game = None
        self.next_seq = None

    def notes_for(self, event: dict) -> list[dict]:
        """The notes of one `event` message; [] if it is not the next one (a resync follows)."""
        if self.game is None or (self.next_seq is not None and event.get("seq") != self.next_seq):
            return []
        try:
            notes = self.game.apply(event["seat"], event["action"], event["t"])
        except (IllegalAction, KeyError):
            self.game = None
            return []
        self.next_seq = event["seq"] + 1
        return notes
