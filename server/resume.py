"""Start-up and resume: the table file written when a game starts, and at start-up every
unfinished table the state folder holds taken up again, or set aside.

`store_game` opens a starting game's log and writes its table file (seats, tokens, the
game's secret) beside it; a game that cannot be saved never starts and leaves no log.
`resume_tables` reads those files back when the host starts.

Resume never stops the host. Whatever is wrong with one table's files (a table file cut in
half, a log without its header, a renamed field, garbage at the end, events the engine
refuses), that table is set aside: its files move to `damaged/` beside a note saying why, the
host's start-up lines name it, and its players are told in words when they say hello. Every
other table resumes. A log whose last record was torn (a host killed mid-write) resumes from
its last whole event, and the start-up line says how many bytes were dropped.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import cast

from kismet_tui.rules.game_types import Event, Header
from kismet_tui.rules.rng import CHANCE_VERSION, KNOWN_CHANCE_VERSIONS, header_chance_version

from . import table_share
from .chance import GameSecret
from .jobs import Jobs
from .player import ToldLater
from .store import GameWriter, TableFile
from .table import Table

log = logging.getLogger("kismet.host")


class DamagedTable(ValueError):
    """One table's saved files cannot be resumed; the words say why."""


def _record_of(path: Path) -> TableFile:
    import json

    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DamagedTable(f"its table file cannot be read ({exc.__class__.__name__})") from None
    if not isinstance(record, dict):
        raise DamagedTable("its table file is not a table")
    checks = {"id": int, "ruleset": str, "options": dict, "seats": list, "game_file": str}
    for key, kind in checks.items():
        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool):
            raise DamagedTable(f"its table file has no valid '{key}'")
    if str(record["id"]) != path.stem:
        raise DamagedTable(f"its table file names table {record['id']}, not {path.stem}")
    name = record["game_file"]
    if Path(name).name != name or not name.endswith(".kismet"):
        raise DamagedTable("its table file names a game log outside the games folder")
    for seat in record["seats"]:
        if not (
            isinstance(seat, dict)
            and isinstance(seat.get("token"), str)
            and isinstance(seat.get("name"), str)
            and (seat.get("bot") is None or isinstance(seat.get("bot"), str))
        ):
            raise DamagedTable("its table file has a seat that is not one")
    if record.get("owner") is not None and not isinstance(record["owner"], str):
        raise DamagedTable("its table file has no valid 'owner'")
    return cast(TableFile, record)  # (its fields checked above; the rest are read with care)


def store_game(host: Jobs, table: Table, header: Header) -> GameWriter:
    """The starting game's GameWriter, its table file written beside it."""
    path = host.store.new_game_file(table.id, table.ruleset)
    writer = host.store.open_game(path, header, table.id, sync=False)
    try:
        table_file = _save_table(host, table, path)
    except Exception:
        writer.close()
        path.unlink(missing_ok=True)  # a game that never started leaves no log
        raise
    host.store.sync_soon(path, table_file)  # both flushed right after, off the loop
    return writer


def _save_table(host: Jobs, table: Table, path: Path) -> Path:
    return host.store.save_table(
        table.id,
        {
            "id": table.id,
            "ruleset": table.ruleset,
            "options": table.options,
            "owner": table.owner,
            "games_played": table.games_played,
            "seats": [{"token": s.token, "name": s.name, "bot": s.bot} for s in table.seats],
            "game_file": path.name,
            "opened_by": list(table.opened_by),  # the fair share goes on counting after a restart
            # The running game's secret, kept beside the tokens (owner-only file) so a
            # restarted host can go on drawing; gone when the game ends and reveals it.
            "server_seed": table.secret.server_seed.hex(),
        },
    )


def resume_tables(host: Jobs) -> tuple[list[str], list[str]]:
    """Resume what can be; returns (lines for resumed tables, lines for set-aside tables)."""
    store = host.store
    resumed, set_aside = [], []
    for path in store.table_files():
        record, files = None, [path]
        try:
            record = _record_of(path)
            game_path = store.games / record["game_file"]
            files.append(game_path)
            line = _resume_one(host, record, game_path)
            if line is not None:
                resumed.append(line)
        except Exception as exc:  # anything at all: this table is set aside, the host goes on
            reason = str(exc) if isinstance(exc, DamagedTable) else _why(exc)
            table_id = record["id"] if record is not None else path.stem
            # Whom to tell, read before the files move (an unreadable file: what is legible).
            tokens = _tokens(record) if record is not None else _salvaged_tokens(path)
            try:
                folder = store.set_aside(files, table_id, reason)
                where = f"its files are in {folder}"
            except OSError as move_exc:
                where = f"its files could not be moved ({move_exc.strerror or move_exc})"
            line = f"Set aside table {table_id}: {reason}; {where}."
            log.error(line)
            set_aside.append(line)
            if isinstance(record, dict) and isinstance(record.get("id"), int):
                store.note_table_id(record["id"])
            for token in tokens:
                host.set_aside[token] = ToldLater(
                    f"Your table {table_id} could not be taken up again after the host "
                    f"restarted: {reason}. It was set aside; please join or open another.",
                    None,
                )
    return resumed, set_aside


def _why(exc: Exception) -> str:
    from kismet_tui.rules import Refusal
    from protocol.gamelog import LogError

    if isinstance(exc, LogError):
        return f"its game log is damaged ({exc})"
    if isinstance(exc, Refusal):  # the engine's, or the declarations' (build_event)
        return f"its game log does not replay ({exc.words})"
    if isinstance(exc, FileNotFoundError):
        return "its game log is missing"
    if isinstance(exc, OSError):
        return f"its files cannot be read ({exc.strerror or exc})"
    if isinstance(exc, KeyError):
        return f"its game log lacks the field {exc}"
    return f"its game log does not replay ({exc.__class__.__name__}: {exc})"


def _tokens(record: object) -> list[str]:
    if not isinstance(record, dict) or not isinstance(record.get("seats"), list):
        return []
    return [
        s["token"]
        for s in record["seats"]
        if isinstance(s, dict) and isinstance(s.get("token"), str) and not s.get("bot")
    ]


# A human seat as json.dumps writes it in a table file (_save_table), and the owner: what an
# unreadable table file (cut short, garbled) may still say about whom to tell.
_HUMAN_SEAT = re.compile(
    r'"token": "([A-Za-z0-9_-]{1,64})", "name": "(?:[^"\\]|\\.)*", "bot": null'
)
_OWNER = re.compile(r'"owner": "([A-Za-z0-9_-]{1,64})"')


def _salvaged_tokens(path: Path) -> list[str]:
    """The human players' tokens still legible in a table file that does not parse."""
    try:
        with open(path, "rb") as stream:
            text = stream.read(1 << 20).decode("utf-8", "replace")  # table files are small
    except OSError:
        return []
    found = [m.group(1) for m in _OWNER.finditer(text)] + [
        m.group(1) for m in _HUMAN_SEAT.finditer(text)
    ]
    return list(dict.fromkeys(found))


def _resume_one(host: Jobs, record: TableFile, game_path: Path) -> str | None:
    store = host.store
    header, events, end, torn = store.read_game(game_path)
    if end is not None:  # finished, but the host stopped before it removed the table file
        store.drop_table(record["id"])
        store.note_table_id(record["id"])
        return None
    seats = header.get("seats")
    if (
        header.get("ruleset") != record["ruleset"]
        or not isinstance(seats, list)
        or len(seats) != len(record["seats"])
    ):
        raise DamagedTable("its table file and its game log do not match")
    from kismet_tui.rules import replay
    from protocol.actions import build_event

    # Built as the host built them (protocol/actions.py): the one parse of an action.
    events = [cast(Event, build_event(record["ruleset"], event)) for event in events]
    replay(header, events)  # refuses a log that does not replay, before anything is written
    table = Table(host, record["id"], record["ruleset"], record["options"], record.get("owner"))
    table.games_played = (
        record.get("games_played", 0) if isinstance(record.get("games_played"), int) else 0
    )
    for saved in record["seats"]:
        table.sit(saved["token"], saved["name"], saved.get("bot"))
    opened_by = record.get("opened_by")
    if isinstance(opened_by, list) and all(isinstance(key, str) for key in opened_by):
        table.opened_by = tuple(opened_by)
    writer = store.open_game(game_path, header, table.id, events)  # rewritten whole: no torn tail
    try:
        # The secret keeps the derivation of the game it was saved with (version 2 or 3).
        version = header_chance_version(header)
        secret = GameSecret.from_hex(
            record.get("server_seed"),
            version if version in KNOWN_CHANCE_VERSIONS else CHANCE_VERSION,
        )
        table.resume(header, events, writer, secret)
    except Exception:
        writer.close()
        raise
    host.tables[table.id] = table
    store.note_table_id(table.id)
    # The last event before the restart (the away marks are later): down from here on.
    stopped_at = events[-1]["t"] if events else header.get("t0", 0)
    table_share.look_again(host, table)  # nobody is back yet: it closes unless someone returns
    if table.paused_at is not None:  # or pauses (`kismet`): its clock stood still since
        table.paused_at = min(table.paused_at, stopped_at)
    for seat in table.seats:
        if seat.bot:
            host.spawn_bot(table, seat)
    line = f"Resumed table {table.id} ({table.ruleset}) at event {len(events)}"
    if torn:
        line += f"; its log ended in a torn record: {torn} bytes dropped after the last whole event"
    log.info(line)
    return line + "."
