"""The host's state folder: game logs as they happen, and the tables to resume.

    STATE_DIR/games/<utc time>-table<id>-<ruleset>.kismet   one game's log (protocol.gamelog)
    STATE_DIR/tables/<id>.json                               a table with an unfinished game

A game log gets its header when the game starts and each event as it is stamped, flushed
before the event is sent to anyone, so a host killed at any moment has every event a client
saw. The table file holds what the log does not: the owner and the rejoin token of each seat
(kept out of the log so a replay file can be shared). It is written when a game starts and
removed when the game ends. Neither file is read by anything but the host and the replay
viewer.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from protocol.gamelog import read_log_full, record_bytes


class GameWriter:
    """Appends one game's records to its log file, flushing each."""

    def __init__(self, path: Path, header: dict, table_id: int, events=()):
        self.path = path
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as out:
            out.write(record_bytes({"kind": "header", "header": header, "table": table_id}))
            for event in events:
                out.write(record_bytes({"kind": "event", **event}))
        os.replace(tmp, path)  # a torn tail from a crash is gone once we rewrite
        self._file = open(path, "ab", buffering=0)

    def append(self, event: dict) -> None:
        self._file.write(record_bytes({"kind": "event", **event}))

    def finish(self, result: dict | None, server_seed: bytes | None = None) -> None:
        record = {"kind": "end", "result": result}
        if server_seed is not None:
            record["server_seed"] = server_seed  # protocol version 2: revealed at the end
        self._file.write(record_bytes(record))
        self.close()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


class Store:
    def __init__(self, state_dir):
        self.root = Path(state_dir)
        self.games = self.root / "games"
        self.tables = self.root / "tables"
        self.games.mkdir(parents=True, exist_ok=True)
        self.tables.mkdir(parents=True, exist_ok=True)

    def new_game_file(self, table_id: int, ruleset: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        path = self.games / f"{stamp}-table{table_id}-{ruleset}.kismet"
        n = 1
        while path.exists():
            n += 1
            path = self.games / f"{stamp}-table{table_id}-{ruleset}-{n}.kismet"
        return path

    def save_table(self, table_id: int, record: dict) -> None:
        path = self.tables / f"{table_id}.json"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # tokens inside
        with os.fdopen(fd, "w") as out:
            json.dump(record, out)
        os.replace(tmp, path)

    def drop_table(self, table_id: int) -> None:
        try:
            (self.tables / f"{table_id}.json").unlink()
        except FileNotFoundError:
            pass

    def load_tables(self) -> list[tuple[dict, dict, list[dict], dict | None]]:
        """(table record, header, events, end) for each saved table, by table id."""
        found = []
        for path in sorted(self.tables.glob("*.json"), key=lambda p: p.stem):
            try:
                record = json.loads(path.read_text())
                header, events, end = read_log_full(self.games / record["game_file"])
            except (OSError, ValueError, KeyError):
                continue  # a table whose log is gone cannot be resumed
            found.append((record, header, events, end))
        return found
