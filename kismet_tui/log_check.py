"""`kismet-replay --verify`: every check of a saved game, in order, each said in plain words.

    report = check_log(read_game_log(path), host_key="SHA256:..." or None)
    report.lines        # one line per check, or the first that failed
    report.exit_code    # 0 all good, 1 something differs, 2 something cannot be checked
                        # (an unfinished game, a file cut short, a log from before signing)

The checks:

1. **The signature** (protocol/logsign.py): that its bytes did not change after signing, and
   who signed it: "the host you played at" when the key is one this player met
   (kismet_tui/known_hosts.py), else "a key you have never seen", which fails unless
   `host_key` names it (and with `host_key`, any other key fails). A finished log from a
   host that signs (protocol version 3 and later) with no signature fails; only a log from
   before signing may be unsigned, and nothing then shows who wrote it (exit 2).
2. **The events**: every event replayed through the engine with the values it revealed, each
   legal at its stamp (stamps never go back, the seat may act then, the host stamps only its
   own actions).
3. **The chance** (kismet_tui/rules/verify.py, the existing check, called as a step): the
   revealed seed fits the commit and redraws every value.
4. **The end**: the end record's result (and, from hosts that write it, the digest of the
   whole end state) is what the events give.

After a failure in 2-4 the later ones are not tried (they would only repeat it), with one
exception that names the edit rather than its consequence: when the engine refuses an event
only because a value before it was changed (the engine took the changed value; the seed gives
another), the chance step's words about that earlier event replace the refusal. A result that
differs is said field by field, with both values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from protocol.actions import build_event
from protocol.gamelog import MARK_EVERY, GameLog
from protocol.logsign import check_signature, fingerprint
from protocol.plain import Plain

from .rules import ChanceError, Game, IllegalAction, Refusal, apply_event, game_from_header
from .rules.base import HOST
from .rules.verify import Verification, verify

OK, DIFFERS, UNCHECKED = 0, 1, 2


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    exit_code: int = OK
    # The seq of the event the engine refused (check_events), if it refused one.
    refused_at: int | None = None

    def good(self, words: str) -> None:
        self.lines.append(words)

    def bad(self, words: str) -> None:
        self.lines.append(words)
        self.exit_code = DIFFERS

    def unchecked(self, words: str) -> None:
        self.lines.append(words)
        if self.exit_code == OK:
            self.exit_code = UNCHECKED

    @property
    def ok(self) -> bool:
        return self.exit_code == OK


def check_log(
    log: GameLog, host_key: str | None = None, known: Mapping[bytes, Sequence[str]] | None = None
) -> Report:
    report = Report()
    check_signed(log, report, host_key, known)
    seed = (log.end or {}).get("server_seed")
    said = len(report.lines)
    # (The chance step redraws only with a commit to check the seed against.)
    can_redraw = seed is not None and "commit" in log.header
    built = Built(log)
    game = check_events(log, built, report, can_redraw)
    if game is None and len(report.lines) > said:  # refused, and said why
        if can_redraw and report.refused_at is not None:
            earlier = verify(log.header, built.events, seed)
            if edited_before(earlier, report.refused_at):
                # A value changed earlier is the edit; the refusal only follows from it.
                report.lines[-1] = (
                    f"{earlier.words} (Event {report.refused_at} no longer replays after it.)"
                )
        return report
    chance = verify(log.header, built.events, seed)
    if chance.ok:
        report.good(chance.words)
    elif chance.seq is None:  # nothing to check it with: version 1, or no seed revealed
        report.unchecked(chance.words)
    else:
        report.bad(chance.words)
        return report
    if game is not None:
        check_end(log, game, report)
    return report


def edited_before(chance: Verification, refused_at: int | None) -> bool:
    """Whether the chance check found a changed value in an event before the one the engine
    refused: a value the engine takes (a first roller, a die) but the seed does not give."""
    return (
        not chance.ok
        and refused_at is not None
        and isinstance(chance.seq, int)
        and 0 < chance.seq < refused_at
    )


SIGNING_VERSION = 3  # hosts of this protocol version (the header's `version`) sign every game


def signing_host_wrote(log: GameLog) -> str | None:
    """Why this log is from a host that signs every game it finishes, in words, or None
    (a log from before signing): what only such hosts write is in it."""
    version = log.header.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version >= SIGNING_VERSION:
        return f"its header says protocol version {version}"
    if log.host_key is not None:
        return "its header names the host's key"
    if log.end is not None and ("digest" in log.end or "marks" in log.end):
        return "its end record has the digest and marks only signing hosts write"
    return None


def check_signed(
    log: GameLog,
    report: Report,
    host_key: str | None,
    known: Mapping[bytes, Sequence[str]] | None = None,
) -> None:
    """Who signed the log, against the keys this player has met (`known`: key -> the
    addresses that showed it, kismet_tui/known_hosts.py) or the one named (`host_key`)."""
    record = log.signature
    if record is None:
        signing = signing_host_wrote(log)
        if log.torn:  # the file was cut short: say so, not that the game never ended
            cut_at = (
                "after its end record" if log.end is not None else f"after event {len(log.events)}"
            )
            words = (
                f"Truncated: the file stops {log.torn} bytes into a record {cut_at}; "
                "what followed ("
            )
            words += (
                "its signature"
                if log.end is not None
                else "the rest of the game, its end and signature"
            )
            words += ") is missing, so it cannot be checked whole."
            if log.end is not None and signing is not None:
                report.bad(words)
            else:
                report.unchecked(words)
        elif log.end is None:
            report.unchecked("Not signed: the game never ended.")
        elif signing is not None:
            report.bad(
                f"Not signed, but {signing}: hosts since protocol version "
                f"{SIGNING_VERSION} sign every game they finish, so its signature was "
                f"cut off and nothing shows who wrote it."
            )
        else:
            report.unchecked(
                f"Not signed (older host, before protocol version "
                f"{SIGNING_VERSION}): nothing shows who wrote it; judged on the rest."
            )
        if host_key is not None:
            report.bad(f"You asked for host {host_key}, but nobody signed this log.")
        return
    key = record.get("key")
    signer = fingerprint(key) if isinstance(key, bytes) else "(no key)"
    problem = check_signature(record, log.signed_digest)
    if problem is not None:
        where = where_changed(log)
        report.bad(
            f"The signature does not match: the log was changed after host {signer} "
            f"signed it ({problem}){': ' + where if where else ''}."
        )
        return
    if log.after_signature:
        count = log.after_signature
        report.bad(
            f"Signed by host {signer}, but {count} record{'s' if count > 1 else ''} "
            f"follow{'' if count > 1 else 's'} the signature: added after the host signed."
        )
        return
    if log.host_key is not None and log.host_key != key:
        named = fingerprint(log.host_key) if isinstance(log.host_key, bytes) else repr(log.host_key)
        report.bad(
            f"Signed by {signer}, but the log's header names the host's key as {named}: "
            f"it was signed again by another key."
        )
        return
    if host_key is not None and signer != host_key:
        report.bad(
            f"Signed by host {signer}, not by {host_key} as you asked: this log is not that host's."
        )
        return
    addresses = (known or {}).get(key) if isinstance(key, bytes) else None
    if addresses:
        report.good(
            f"Signed by the host you played at ({signer}), known here as {', '.join(addresses)}."
        )
    elif host_key is not None:
        report.good(f"Signed by host {signer}, the key you named.")
    else:
        report.bad(
            f"Signed by a key you have never seen ({signer}): no host you joined from "
            f"this computer showed it. If you know it is the host's (kismet-host prints "
            f"its key at start), name it: --host-key {signer}"
        )


def where_changed(log: GameLog) -> str | None:
    """Where the bytes first differ from the ones the host marked (its end record's marks,
    signed with the rest), in words; None when the end record has no usable marks."""
    written = (log.end or {}).get("marks")
    if not isinstance(written, list) or not all(isinstance(m, bytes) for m in written):
        return None
    for index, (mark, found) in enumerate(zip(written, log.marks)):
        if mark != found:
            first, last = index * MARK_EVERY + 1, (index + 1) * MARK_EVERY
            return (
                f"the first change is in the header or events 1 to {last}"
                if index == 0
                else f"the first change is in events {first} to {last}"
            )
    after = min(len(written), len(log.marks)) * MARK_EVERY
    if len(log.events) > after:
        return f"the first change is in events {after + 1} to {len(log.events)} or the end record"
    return "the first change is in the end record"


def _seat_words(header: Plain, seat: object) -> str:
    if seat == HOST:
        return "the host"
    seats = header.get("seats")
    if isinstance(seats, list) and isinstance(seat, int) and 0 <= seat < len(seats):
        return f"seat {seat} ({seats[seat]})"
    return f"seat {seat}"


def _action_words(action: object) -> str:
    if not isinstance(action, dict):
        return "move"
    kind = str(action.get("type", "move"))
    if kind == "grab" and "card" in action:
        return f"grab at place {action['card']}"
    if kind == "score" and "box" in action:
        return f"score in {action['box']}"
    if "card" in action:
        return f"{kind} of card {action['card']}"
    return kind


def _ms(value: object, t0: object) -> str:
    if isinstance(value, int) and isinstance(t0, int):
        return f"{value - t0:,} ms into the game"
    return f"time {value!r}"


class Built:
    """The log's events with their actions built as the host builds them (build_event, the
    one parse of an action), up to the first that does not build: `error` says why."""

    def __init__(self, log: GameLog) -> None:
        self.events: list[Plain] = []
        self.error: Exception | None = None
        ruleset = str(log.header.get("ruleset"))
        for event in log.events:
            try:
                self.events.append(build_event(ruleset, event))
            except (Refusal, KeyError, TypeError) as exc:  # (check_events says it in words)
                self.error = exc
                break


def check_events(log: GameLog, built: Built, report: Report, can_redraw: bool) -> Game | None:
    """The game after every event, each applied with the values it revealed; None (with the
    failure reported) at the first event the engine (or the declarations) refuse. A list of
    revealed values that does not fit the draws is left to the chance step when it
    `can_redraw` (it names the values the seed gives, which says more); chance that is no list
    at all is said here."""
    header = log.header
    try:
        game = game_from_header(header)
    except IllegalAction as exc:
        _refused(report, "The game's start", header.get("chance"), exc, can_redraw)
        return None
    except (KeyError, TypeError, ValueError) as exc:
        report.bad(f"The game's header cannot be read ({exc}).")
        return None
    for index, event in enumerate(log.events):
        where = (
            f"Event {event.get('seq')}: {_seat_words(header, event.get('seat'))}'s "
            f"{_action_words(event.get('action'))}"
        )
        try:
            if index == len(built.events) and built.error is not None:
                raise built.error  # the first event that does not build
            apply_event(game, built.events[index])
        except Refusal as exc:
            seq = event.get("seq")
            report.refused_at = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
            at = f" at {_ms(event.get('t'), header.get('t0'))}"
            _refused(report, where, event.get("chance"), exc, can_redraw, at)
            return None
        except (KeyError, TypeError, ValueError) as exc:
            report.bad(f"{where} cannot be read ({exc}).")
            return None
    count = len(log.events)
    report.good(
        f"Every event ({count}) is legal at its stamp, in order, from the seat that may make it."
    )
    return game


def _refused(
    report: Report, where: str, chance: object, exc: Refusal, can_redraw: bool, at: str = ""
) -> None:
    """Say why the engine refused the start or an event (see check_events)."""
    if not isinstance(exc, ChanceError):
        report.bad(f"{where} is not legal{at}: {exc.words}")
    elif chance is not None and not isinstance(chance, list):
        report.bad(f"{where}: its chance is {chance!r}, not a list of values.")
    elif not can_redraw:
        report.bad(f"{where}: its chance does not fit the rules: {exc.words}")


def check_end(log: GameLog, game: Game, report: Report) -> None:
    end = log.end
    if end is None:
        return  # the chance step has already said the game never ended
    last = len(log.events)
    replayed = game.result()
    if replayed is None:
        report.bad(
            f"The end record says the game is over, but after its last event ({last}) "
            f"the game is still going."
        )
        return
    logged = end.get("result")
    if logged != replayed:
        report.bad(
            f"The end record's result is not what the events give: "
            f"{_result_difference(logged, replayed)}."
        )
        return
    digest = end.get("digest")
    if digest is not None and digest != game.digest():
        report.bad(
            f"The end record's digest is not the state the events reach after event "
            f"{last}: something in the game's state was changed."
        )
        return
    report.good(f"The end record matches the replay: {_result_words(replayed)}.")


def _result_difference(logged: object, replayed: Mapping[str, object]) -> str:
    """Each field where the end record's result differs from the replay's, with both values
    (`scores` and `winners` first, then the game's own fields as the replay lists them)."""
    if not isinstance(logged, dict):
        return f"it says {logged!r}, the events give {_result_words(replayed)}"
    said = []
    for name, value in replayed.items():
        if name not in logged:
            said.append(f"it has no {name}, the events give {value!r}")
        elif logged[name] != value:
            said.append(f"in {name} it says {logged[name]!r}, the events give {value!r}")
    said += [
        f"it has {name} {logged[name]!r}, which the events do not give"
        for name in logged
        if name not in replayed
    ]
    return "; ".join(said)


def _result_words(result: object) -> str:
    if not isinstance(result, dict):
        return repr(result)
    return f"scores {result.get('scores')!r}, winners {result.get('winners')!r}"
