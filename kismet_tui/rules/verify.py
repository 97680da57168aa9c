"""Checking a finished game (version 2 or 3): did every die and card come from the committed seed?

    result = verify(header, events, server_seed)
    result.ok, result.seq, result.words      # seq: the first event that differs (0: the header)

The host committed to `commitment(server_seed)` before anyone readied; the players' entropy
is in the header. Verification checks the commit, then replays the game drawing from the
stream seeded with `chance_seed(server_seed, entropy)` and compares, event by event, the
values the stream gives with the values the host revealed (`chance`). The first difference is
named in plain words. Both derivations are those of the protocol version that wrote the game
(the header's `version`, rng.header_chance_version), so a log of an older version still
verifies. Standard library only, like the rest of the engine; the host uses the same replay
(`replay_with_stream`) to take up a game after a restart. The events' actions are built at
the edge first (protocol/actions.py `build_event`), as for every replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import game_from_header
from .base import HOST, AnyGame, IllegalAction
from .game_types import LogHeader
from .rng import SERVER_SEED_BYTES, SeededRNG, chance_seed, commitment, header_chance_version


class Verification:
    __slots__ = ("ok", "seq", "words", "game")

    def __init__(self, ok: bool, words: str, seq: int | None = None, game: AnyGame | None = None):
        self.ok, self.words, self.seq, self.game = ok, words, seq, game

    def __repr__(self) -> str:
        return f"Verification(ok={self.ok}, seq={self.seq}, words={self.words!r})"


def _values(values: Sequence[object]) -> str:
    return " ".join(str(v) for v in values) if values else "nothing"


def _who(header: LogHeader, seat: object) -> str:
    if seat == HOST:
        return "the host"
    seats = header.get("seats")
    if isinstance(seats, list) and isinstance(seat, int) and 0 <= seat < len(seats):
        return str(seats[seat])
    return f"seat {seat}"


def describe_event(header: LogHeader, event: Mapping[str, Any]) -> str:
    sent = event.get("action")
    action = sent if isinstance(sent, dict) else {}
    kind = action.get("type", "move")
    return f"Event {event.get('seq')} ({kind} by {_who(header, event.get('seat'))})"


def _difference(where: str, revealed: Iterable[object] | None, redrawn: list[int]) -> str:
    shown = list(revealed or [])
    if len(shown) < len(redrawn) and shown == redrawn[: len(shown)]:
        return (
            f"{where}: a value is missing. The log shows {_values(shown)}; "
            f"the committed seed gives {_values(redrawn)}."
        )
    if len(shown) > len(redrawn) and shown[: len(redrawn)] == redrawn:
        return (
            f"{where}: the log shows more values than were drawn ({_values(shown)}; "
            f"the committed seed gives {_values(redrawn)})."
        )
    return (
        f"{where}: the log shows {_values(shown)} but the committed seed gives {_values(redrawn)}."
    )


def replay_with_stream(
    header: LogHeader, events: Iterable[Mapping[str, Any]], server_seed: bytes
) -> Verification:
    """Replay with the secret stream, comparing each event's revealed chance with the redraw.
    `game` (on success) holds the stream positioned after the last event."""
    entropy = header.get("entropy") or []
    if not isinstance(entropy, list) or not all(
        e is None or isinstance(e, (bytes, bytearray)) for e in entropy
    ):
        return Verification(False, "The header's entropy is not a list of bytes per seat.", 0)
    version = header_chance_version(header)
    if version is None or version < 2:
        return Verification(False, _unknown_version(header), 0)
    rng = SeededRNG(chance_seed(server_seed, entropy, version))
    try:
        game = game_from_header(header, rng=rng)
    except IllegalAction as exc:
        return Verification(False, f"The game's start does not replay: {exc.words}", 0)
    except (KeyError, TypeError, ValueError) as exc:
        return Verification(False, f"The game's header cannot be read ({exc}).", 0)
    drawn = rng.take_drawn()
    if not isinstance(header.get("chance") or [], list):
        return Verification(False, "The game's start: its chance is not a list of values.", 0)
    if list(header.get("chance") or []) != drawn:
        return Verification(False, _difference("The game's start", header.get("chance"), drawn), 0)
    for event in events:
        where = describe_event(header, event)
        if not isinstance(event.get("chance") or [], list):
            return Verification(
                False, f"{where}: its chance is not a list of values.", event.get("seq")
            )
        mark = rng.mark()
        try:
            game.apply(event["seat"], event["action"], event["t"])
        except IllegalAction as exc:
            rng.rewind(mark)
            return Verification(False, f"{where} does not replay: {exc.words}", event.get("seq"))
        except (KeyError, TypeError, ValueError) as exc:
            return Verification(False, f"{where} cannot be read ({exc}).", event.get("seq"))
        drawn = rng.take_drawn()
        if list(event.get("chance") or []) != drawn:
            words = _difference(where, event.get("chance"), drawn)
            return Verification(False, words, event.get("seq"))
    return Verification(
        True, "Every die and card came from the seed committed at the start.", None, game
    )


def verify(
    header: LogHeader, events: Iterable[Mapping[str, Any]], server_seed: object
) -> Verification:
    """Check a finished game's commit and every revealed value; see the module docstring."""
    if "commit" not in header:
        return Verification(
            False,
            "This game was saved by protocol version 1: it carries no "
            "commitment, so its chance cannot be checked.",
            None,
        )
    if server_seed is None:
        return Verification(
            False,
            "The host has not revealed the game's seed (the game did "
            "not end), so its chance cannot be checked yet.",
            None,
        )
    if not isinstance(server_seed, (bytes, bytearray)) or len(server_seed) != SERVER_SEED_BYTES:
        return Verification(False, f"The revealed seed is not {SERVER_SEED_BYTES} bytes long.", 0)
    version = header_chance_version(header)
    if version is None:
        return Verification(False, _unknown_version(header), 0)
    if commitment(server_seed, version) != header["commit"]:
        return Verification(
            False,
            "The revealed seed is not the one committed before the game "
            "started (its hash differs from the commit).",
            0,
        )
    return replay_with_stream(header, events, bytes(server_seed))


def _unknown_version(header: LogHeader) -> str:
    return (
        f"This game says it was saved by protocol version {header.get('version')!r}, "
        f"which this program does not know: update it to check this game."
    )
