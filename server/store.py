"""The host's state folder: game logs as they happen, and the tables to resume.

    STATE_DIR/games/<utc time>-table<id>-<ruleset>.kismet   one game's log (protocol.gamelog)
    STATE_DIR/tables/<id>.json                               a table with an unfinished game
    STATE_DIR/damaged/                                       tables set aside at start-up
    STATE_DIR/next-table-id                                  the next table id (never reused)

A game log gets its header when the game starts and each event as it is stamped, written
before the event is sent to anyone, so a host killed at any moment has every event a client
saw. The table file holds what the log does not: the owner and the rejoin token of each seat
(kept out of the log so a replay file can be shared). It is written when a game starts and
removed when the game ends (on the sync thread, once the end is flushed: `flush_soon`).
Neither file is read by anything but the host and the replay viewer.

Pruning the finished logs beyond the keep is the records' job (server/records/): through
their index, on their worker thread, so no game end lists the folder.

Every write is checked (`Disk`): a short write, a full or read-only disk, an I/O error raise
`StoreError` with words for players, and a record that could not be written whole is cut
off again, so the log never holds half a record followed by a good one.

A finished log ends with the host's signature (protocol/logsign.py): the writer hashes every
byte it writes, and the last event, the end record and the signature go out in one write.

When to fsync: the end record, before anyone is shown the game finished (a finished game is
what players keep), on the store's sync threads while the table waits (server/saving.py) and
every other table plays on (the writer itself never flushes: `flush_soon`); the header and the table file of a starting game right after they are
written, in one job on the store's sync threads (`sync_soon`), so the event loop never waits
for the disk at a start: a flush takes 2 ms and more here (7 ms at p90), and 50 tables starting
their rematches together stalled every other table for a tenth of a second. Not each event:
the events of a running game reach the OS before anyone sees them, so a killed host loses
none of them, nor its starts; only a power cut could lose the last moments (or a start made
in the few milliseconds before it), and then the players' own screens lose them too. An
fsync per event would cost a disk flush per dice roll and per race grab (milliseconds on a
real disk, the grab order's whole budget).
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

from kismet_tui.rules.game_types import EndRecord, Event, Header
from protocol.framing import frame_of, map_entries
from protocol.gamelog import (
    MARK_EVERY,
    LogError,
    iter_records,
    prefix_mark,
    read_log_full,
    record_bytes,
)
from protocol.host_messages import HeaderRecord, event_record
from protocol.logsign import signature_record, signed_message

from .identity import HostIdentity

log = logging.getLogger("kismet.host")

# errno -> how players are told why the host cannot save ("its disk is full"). Looked up by
# OSError.errno, which is None for an error the OS did not number.
_WHY: dict[int | None, str] = {
    errno.ENOSPC: "its disk is full",
    errno.EDQUOT: "its disk quota is used up",
    errno.EROFS: "its disk is read-only",
    errno.EIO: "its disk reports an input/output error",
    errno.EACCES: "it may not write to its state folder",
    errno.EPERM: "it may not write to its state folder",
}


_KIND_EVENT = map_entries({"kind": "event"})  # how every event record of a log begins


class StoreError(OSError):
    """A write that did not happen whole. `why` completes "The host cannot save ...: <why>"."""

    def __init__(self, why: str, err: int | None = None):
        super().__init__(err or errno.EIO, why)
        self.why = why


def why_of(exc: OSError) -> str:
    if isinstance(exc, StoreError):
        return exc.why
    return _WHY.get(exc.errno, f"writing failed ({exc.strerror or exc})")


class Disk:
    """The system calls the store writes through; tests put a FaultyDisk in its place."""

    def write(self, fd: int, data: bytes | memoryview) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)


def write_all(
    disk: Disk, fd: int, data: bytes, start: int | None = None, verify: bool = True
) -> None:
    """Write every byte of `data` at `start` (default: where the file offset is) or raise
    StoreError; a partial write is cut off again. If an earlier cut failed, the file is cut
    back to `start` before anything else is written, or the write is refused. `verify=False`:
    the caller knows no earlier write failed (the file is `start` bytes long), so the look
    at its size (a system call per event) is skipped."""
    if start is None:
        start = os.lseek(fd, 0, os.SEEK_CUR)
    elif verify and os.fstat(fd).st_size != start:
        try:
            os.ftruncate(fd, start)
        except OSError as exc:
            raise StoreError(why_of(exc), exc.errno) from None
    view: bytes | memoryview = data  # (a view is made only for what a short write left)
    try:
        while view:
            written = disk.write(fd, view)
            if written <= 0:
                raise StoreError("its disk took none of the data", errno.EIO)
            if written >= len(view):
                break
            view = memoryview(view)[written:]
    except OSError as exc:
        try:  # take back what half got there, so the next record starts on a boundary
            os.ftruncate(fd, start)
            os.lseek(fd, start, os.SEEK_SET)
        except OSError:
            pass
        raise StoreError(why_of(exc), exc.errno) from None


def _write_file(disk: Disk, path: Path, data: bytes, sync: bool, mode: int = 0o644) -> None:
    """The whole of `path` replaced by `data`, atomically (a temporary file, then rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    except OSError as exc:
        raise StoreError(why_of(exc), exc.errno) from None
    try:
        write_all(disk, fd, data)
        if sync:
            disk.fsync(fd)
    except OSError as exc:
        os.close(fd)
        _unlink(tmp)
        raise StoreError(why_of(exc), exc.errno) from None
    os.close(fd)
    try:
        os.replace(tmp, path)
    except OSError as exc:
        _unlink(tmp)
        raise StoreError(why_of(exc), exc.errno) from None


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


class SavedSeat(TypedDict):
    token: str
    name: str
    bot: str | None  # the bot's level, None for a player


class TableFile(TypedDict):
    """A running game's table file (`tables/<id>.json`, owner-only): what a restarted host
    takes the table up from (server/resume.py checks each field before it trusts one)."""

    id: int
    ruleset: str
    options: dict[str, Any]
    owner: str | None  # the owner's token
    games_played: NotRequired[int]
    seats: list[SavedSeat]
    game_file: str  # the game log's name in the games folder
    opened_by: NotRequired[list[str]]  # whom the table counts against (server/table_share.py)
    server_seed: NotRequired[str]  # the running game's secret, hex


class EveningFile(TypedDict):
    """Tonight's standings (`evening.json`, server/evening.py)."""

    began_ms: int | None
    last_ms: int | None
    wins: dict[str, int]  # by player key


class GameWriter:
    """Appends one game's records to its log file, each write checked; signs the end."""

    def __init__(
        self,
        path: Path,
        header: Header,
        table_id: int,
        events: Iterable[Event] = (),
        disk: Disk | None = None,
        identity: HostIdentity | None = None,
        sync: bool = True,
    ) -> None:
        self.path = path
        self.disk = disk or Disk()
        self.identity = identity  # None: the log is not signed
        # SHA-256 of every byte of whole records on disk, and the end record's marks so far.
        self._hash = hashlib.sha256()
        self._marks: list[bytes] = []
        # The header names the key that will sign the game (docs/protocol.md, "Files").
        shown = identity.shown_key() if identity is not None else None
        first: HeaderRecord = {"kind": "header", "header": header, "table": table_id}
        if shown is not None:
            first["host_key"] = shown
        data = self._hashed(record_bytes(first))
        data += b"".join(self._event_bytes(event) for event in events)
        # A torn tail from a crash is gone once we rewrite. (sync=False: the caller has the
        # file synced off the event loop, Store.sync_soon.)
        _write_file(self.disk, path, data, sync=sync)
        try:
            self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND)  # None once closed
        except OSError as exc:
            raise StoreError(why_of(exc), exc.errno) from None
        self.size = os.lseek(self._fd, 0, os.SEEK_END)  # bytes of whole records on disk
        # Set when a write failed: its cut-off may have failed too, so the next write looks
        # at the file's size first (write_all's verify). Until then the size is known.
        self._torn = False

    @property
    def fd(self) -> int:
        """The open log's descriptor. Nothing writes to a closed writer (a table drops its
        writer as it closes it), so asking after close() is a bug in the caller."""
        if self._fd is None:
            raise ValueError(f"the game log {self.path.name} is closed")
        return self._fd

    def _hashed(self, frame: bytes) -> bytes:
        self._hash.update(frame)
        return frame

    def _event_bytes(self, event: Event) -> bytes:
        frame = self._hashed(record_bytes(event_record(event)))
        self._mark_after(event)
        return frame

    def _mark_after(self, event: Event) -> None:
        if event["seq"] % MARK_EVERY == 0:
            self._marks.append(prefix_mark(self._hash.digest()))

    def append(
        self, event: Event, end: EndRecord | None = None, entries: bytes | None = None
    ) -> None:
        """One event; with `end` (the end record, but its marks), the end record and the
        signature too, in one write. Nothing here flushes: the caller has the end flushed off
        the event loop (Store.flush_soon) before it shows anyone the game finished
        (server/saving.py). `entries`: the event's fields packed already (protocol/framing.py
        map_entries)."""
        if end is None:
            # Every event but the last: hashed once it is on disk, so a write that fails
            # leaves nothing to undo (no copy of the hash and the marks per event).
            if entries is None:
                entries = map_entries(event)
            frame = frame_of(len(event) + 1, _KIND_EVENT, entries, max_frame=None)
            self._put(frame)
            self._hash.update(frame)
            self._mark_after(event)
            return
        self._write(lambda: self._event_bytes(event), end)

    def _write(self, records: Callable[[], bytes], end: EndRecord | None) -> None:
        """Append what `records()` gives (hashed as it is made); with `end`, the end record
        (with the marks) and the signature over every byte before it. A write that fails
        leaves the hash and the marks as they were, like the file."""
        hash_before, marks_before = self._hash.copy(), list(self._marks)
        try:
            data = records()
            if end is not None:
                # (`kind` first, as every record's: an EndRecord holds it already.)
                record = {"kind": "end", **end, "marks": self._marks}
                data += self._hashed(record_bytes(record))
                if self.identity is not None:
                    data += self._signature()
            self._put(data)
        except StoreError:
            self._hash, self._marks = hash_before, marks_before
            raise

    def _put(self, data: bytes) -> None:
        """Append `data` whole after the records on disk, or raise StoreError (nothing of it
        kept, as far as the disk lets the cut-off happen)."""
        try:
            write_all(self.disk, self.fd, data, self.size, verify=self._torn)
        except StoreError:
            self._torn = True
            raise
        self._torn = False
        self.size += len(data)

    def probe(self, size: int) -> None:
        """Whether the disk takes `size` bytes after the records now: written, then cut off
        again (StoreError if it does not), so the log, its hash and marks stay as they were.
        (A crash between the two leaves a torn tail, which reading drops.)"""
        try:
            write_all(self.disk, self.fd, bytes(size), self.size, verify=self._torn)
        except StoreError:
            self._torn = True
            raise
        try:
            os.ftruncate(self.fd, self.size)
        except OSError as exc:
            self._torn = True  # the next write cuts it back first (write_all's verify)
            raise StoreError(why_of(exc), exc.errno) from None

    def _signature(self) -> bytes:
        """The signature record over every byte so far. A key read only now
        (HostIdentity.when_needed) that cannot be used holds the end like a failed write:
        the game pauses saying why, and goes on once the key file is put right."""
        assert self.identity is not None
        try:
            signature = self.identity.sign(signed_message(self._hash.digest()))
        except OSError as exc:  # IdentityError, or the key file unreadable
            raise StoreError(f"the host's key cannot sign it ({exc})", exc.errno) from None
        return record_bytes(signature_record(self.identity.public_key, signature))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# Flushes at once. fsync waits for the disk's journal, which commits the flushes that wait
# together in one go: 50 tables ending their games in the same second are flushed in a few
# commits, where one thread took them one commit each, and the tables waited in line.
SYNC_THREADS = 8

DEFAULT_KEEP_GAMES = 1000  # about 8 MB of dice and race logs (the soak's 1,101 were 8.9 MB)


class Store:
    def __init__(
        self, state_dir: str | Path, disk: Disk | None = None, identity: HostIdentity | None = None
    ) -> None:
        self.root = Path(state_dir)
        self.disk = disk or Disk()
        self.games = self.root / "games"
        self.tables = self.root / "tables"
        self.damaged = self.root / "damaged"
        self.games.mkdir(parents=True, exist_ok=True)
        self.tables.mkdir(parents=True, exist_ok=True)
        self._next_id = self._highest_id() + 1
        # The key finished games are signed with (and the ssh door shows).
        self.identity = identity or HostIdentity.load(self.root)
        # The flushes (SYNC_THREADS at once): those a table waits for (a game's end) on
        # threads of their own, so they never queue behind the starts' and the standings'.
        self._syncer: ThreadPoolExecutor | None = None
        self._ender: ThreadPoolExecutor | None = None
        # Tonight's standings waiting to be written, and the lock held while writing them.
        self._evening_next: bytes | None = None
        self._evening_slot = threading.Lock()
        self._evening_writing = threading.Lock()

    # ---- start-up --------------------------------------------------------------------------
    @staticmethod
    def check_writable(state_dir: str | Path) -> str | None:
        """None if a file can be written, synced and removed in `state_dir`, else why not."""
        root = Path(state_dir)
        probe = root / f".write-check-{os.getpid()}"
        try:
            (root / "games").mkdir(parents=True, exist_ok=True)
            (root / "tables").mkdir(parents=True, exist_ok=True)
            _write_file(Disk(), probe, b"kismet", sync=True)
            probe.unlink()
        except OSError as exc:
            return why_of(exc) if isinstance(exc, StoreError) else (exc.strerror or str(exc))
        return None

    # ---- table ids -------------------------------------------------------------------------
    def _highest_id(self) -> int:
        """The highest table id this folder has ever used: its counter, table files, game
        logs and damaged files all count, so a set-aside table's id is never given again."""
        highest = 0
        try:
            highest = int((self.root / "next-table-id").read_text().strip()) - 1
        except (OSError, ValueError):
            pass
        patterns = (
            (self.tables, re.compile(r"^(\d+)\.json")),
            (self.games, re.compile(r"-table(\d+)-")),
            (self.damaged, re.compile(r"^table(\d+)-")),
        )
        for folder, pattern in patterns:
            try:
                names = [p.name for p in folder.iterdir()]
            except OSError:
                continue
            for name in names:
                found = pattern.search(name)
                if found:
                    highest = max(highest, int(found.group(1)))
        return highest

    def allocate_table_id(self) -> int:
        table_id = self._next_id
        self._next_id += 1
        try:  # best effort: the names of the files a table leaves behind count as well
            _write_file(
                self.disk, self.root / "next-table-id", f"{self._next_id}\n".encode(), sync=False
            )
        except StoreError:
            pass
        return table_id

    def note_table_id(self, table_id: int) -> None:
        self._next_id = max(self._next_id, table_id + 1)

    # ---- games -----------------------------------------------------------------------------
    def new_game_file(self, table_id: int, ruleset: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        path = self.games / f"{stamp}-table{table_id}-{ruleset}.kismet"
        n = 1
        while path.exists():
            n += 1
            path = self.games / f"{stamp}-table{table_id}-{ruleset}-{n}.kismet"
        return path

    def open_game(
        self,
        path: Path,
        header: Header,
        table_id: int,
        events: Iterable[Event] = (),
        sync: bool = True,
    ) -> GameWriter:
        """The game's log, written with its header (and `events`), flushed soon on a sync
        thread (`sync` False: the caller has it flushed, with the table file: sync_soon)."""
        writer = GameWriter(
            path, header, table_id, events, disk=self.disk, identity=self.identity, sync=False
        )
        if sync:
            self.sync_soon(path)
        return writer

    def save_evening_soon(self, record: EveningFile) -> None:
        """Tonight's standings (server/evening.py), replaced whole on a sync thread: a
        rename over the old file can wait on the disk for milliseconds, at every game's end.
        The latest record asked for is the one written; a disk that refuses is logged."""
        data = json.dumps(record).encode()
        with self._evening_slot:
            self._evening_next = data
        self._sync_thread().submit(self._save_evening)

    def _save_evening(self) -> None:
        with self._evening_writing:  # one writer at a time (one temporary file)
            with self._evening_slot:
                data, self._evening_next = self._evening_next, None
            if data is None:  # an earlier thread wrote it already
                return
            try:
                _write_file(self.disk, self.root / "evening.json", data, sync=False)
            except StoreError as exc:
                log.warning(
                    "Tonight's standings could not be saved (%s): a restart would lose them.",
                    exc.why,
                )

    def read_evening(self) -> object:
        """What save_evening wrote last, as read (the caller checks its shape), or None."""
        try:
            return json.loads((self.root / "evening.json").read_text())
        except (OSError, UnicodeDecodeError, ValueError):
            return None

    def save_table(self, table_id: int, record: TableFile) -> Path:
        """The table file, written whole (not flushed: the caller has it flushed right after,
        with the game's log, sync_soon). Its path."""
        data = json.dumps(record).encode()
        # 0600: the rejoin tokens are inside.
        path = self.tables / f"{table_id}.json"
        _write_file(self.disk, path, data, sync=False, mode=0o600)
        return path

    def flush_soon(self, fd: int, drop_table: int | None = None) -> Future:
        """fsync the open file `fd` on a sync thread, then, with `drop_table`, remove that
        table's file (its game is finished on the disk: an unlink, too, can wait on the disk
        for milliseconds). The Future fails with the OSError if the flush does. The thread
        has a descriptor of its own, so the file may be closed here meanwhile."""
        copy = os.dup(fd)
        if self._ender is None:
            self._ender = ThreadPoolExecutor(
                max_workers=SYNC_THREADS, thread_name_prefix="kismet-end"
            )
        return self._ender.submit(self._flush_fd, copy, drop_table)

    def _flush_fd(self, fd: int, drop_table: int | None) -> None:
        try:
            self.disk.fsync(fd)
        finally:
            os.close(fd)
        if drop_table is not None:
            self.drop_table(drop_table)

    def _sync_thread(self) -> ThreadPoolExecutor:
        if self._syncer is None:
            self._syncer = ThreadPoolExecutor(
                max_workers=SYNC_THREADS, thread_name_prefix="kismet-sync"
            )
        return self._syncer

    def sync_soon(self, *paths: Path) -> None:
        """Flush each of `paths`, in turn, to the disk on a sync thread: each file is
        written (checked) already; the flush only makes it outlive a power cut. A file gone
        by then (a game that ended at once) needs none. (One job for a starting game's log
        and table file: one thread woken, not two, at every start.)"""
        self._sync_thread().submit(self._sync_each, paths)

    def _sync_each(self, paths: tuple[Path, ...]) -> None:
        for path in paths:
            self._sync(path)

    def _sync(self, path: Path) -> None:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("cannot open %s to flush it to the disk: %s", path.name, why_of(exc))
            return
        try:
            self.disk.fsync(fd)
        except OSError as exc:
            log.warning("flushing %s to the disk failed: %s", path.name, why_of(exc))
        finally:
            os.close(fd)

    def drop_table(self, table_id: int) -> None:
        """The table's game is over (or it closed): its table file goes (one system call: a
        rematch's new table file must not go with it)."""
        _unlink(self.tables / f"{table_id}.json")

    def close(self) -> None:
        """Wait for the flushes asked for (the host is stopping)."""
        for pool in (self._ender, self._syncer):  # every flush asked for is done first
            if pool is not None:
                pool.shutdown(wait=True)
        self._syncer = self._ender = None

    # ---- resume ----------------------------------------------------------------------------
    def table_files(self) -> list[Path]:
        def number(path: Path) -> int:
            return int(path.stem) if path.stem.isdigit() else 0

        return sorted(self.tables.glob("*.json"), key=number)

    def read_game(self, path: Path) -> tuple[Header, list[Event], EndRecord | None, int]:
        """(header, events, end, torn bytes dropped at the end) of one log, or LogError.
        The host's own log, as it wrote it: resume checks the header against the table file
        and replays every event through the engine before it trusts any of it, and sets a
        log that fails aside (server/resume.py)."""
        header, events, end = read_log_full(path)
        with open(path, "rb") as stream:
            whole = 0
            for _record in iter_records(stream):
                whole = stream.tell()
            size = os.fstat(stream.fileno()).st_size
        return (
            cast(Header, header),
            cast(list[Event], events),
            cast(EndRecord | None, end),
            size - whole,
        )

    def set_aside(self, paths: list[Path], table_id: int | str, reason: str) -> Path:
        """Move a table's files into damaged/, beside a note saying why; returns the folder."""
        folder = self.damaged / f"table{table_id}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
        n = 1
        while folder.exists():
            n += 1
            folder = folder.with_name(folder.name.split("~")[0] + f"~{n}")
        folder.mkdir(parents=True)
        for path in paths:
            if path.exists():
                os.replace(path, folder / path.name)
        (folder / "why.txt").write_text(reason + "\n")
        return folder


__all__ = ["Disk", "GameWriter", "LogError", "Store", "StoreError", "why_of", "write_all"]
