"""Tonight's standings: the games each player won at any of this host's tables since its
evening began, kept in the state folder (`evening.json`), so a restarted host goes on with
them.

An evening begins with the first game that ends after EVENING_GAP_MS without one (a host
started in the afternoon and played again at night has two evenings; one restarted
mid-game has one), and `began_ms` is that game's start: the end box says "since 20:14".
A player is their records id (server/records/proof.py) when something proves them, which
holds across tables, names and restarts; else their rejoin token (their seat's, which a
restart keeps). A bot seat is one player at its table: two medium bots are two opponents.
A solo game is nobody's win. Losing the file (a full disk) loses only tonight's counts: the
host says so in its log and plays on.
"""

from __future__ import annotations

from .store import Store

EVENING_GAP_MS = 6 * 3600 * 1000  # this long without a finished game ends the evening


class Evening:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.began_ms: int | None = None
        self.last_ms: int | None = None
        self.wins: dict[str, int] = {}
        found = store.read_evening()
        if (
            isinstance(found, dict)
            and _is_ms(found.get("began_ms"))
            and _is_ms(found.get("last_ms"))
            and isinstance(found.get("wins"), dict)
        ):
            self.began_ms, self.last_ms = found["began_ms"], found["last_ms"]
            self.wins = {
                str(key): count
                for key, count in found["wins"].items()
                if isinstance(count, int) and not isinstance(count, bool) and count > 0
            }

    def since(self, now_ms: int) -> int | None:
        """When tonight began (host ms), or None when no game has ended tonight."""
        if self.last_ms is None or now_ms - self.last_ms > EVENING_GAP_MS:
            return None
        return self.began_ms

    def wins_of(self, key: str, now_ms: int) -> int:
        return self.wins.get(key, 0) if self.since(now_ms) is not None else 0

    def game_ended(self, started_ms: int, now_ms: int, seats: int, winners: list[str]) -> None:
        """A game of `seats` seats ended; `winners` are the keys of the players who won it."""
        if self.since(now_ms) is None:  # the first game of a new evening
            self.began_ms, self.wins = started_ms, {}
        self.last_ms = now_ms
        if seats > 1:
            for key in winners:
                self.wins[key] = self.wins.get(key, 0) + 1
        # Written off the event loop; a disk that refuses is logged there (Store).
        self.store.save_evening_soon(
            {"began_ms": self.began_ms, "last_ms": self.last_ms, "wins": self.wins}
        )


def _is_ms(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
