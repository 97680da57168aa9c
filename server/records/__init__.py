"""The records: an index in SQLite of every finished game, its players and their ratings.

    STATE_DIR/records.sqlite3   (WAL; -wal and -shm beside it while open)

The logs in games/ stay the record; this database is an index built from them (index.py), so
it can always be built again: `kismet-host --reindex`, or by itself at start when the file is
missing, damaged (set aside into damaged/ with a why.txt) or from a newer host. A file from an
older host is migrated (schema.py).

Everything here runs on one worker thread with its own connection, never on the event loop:
the host hands it a finished log's path (after the end record is synced) and requests to
answer, and gets the answers back through callbacks it makes thread-safe. One thread, one
queue (jobs.py): game ends go before every request waiting, and a request running when a
game arrives is stopped (SQLite's progress handler) and answered after it, so a game's
ratings are written within moments of its end however many requests wait; requests take
fair turns among their askers. A request made after a game ended is answered with that game
in it. The same thread prunes (`keep_games`): after each game it removes the oldest kept
logs beyond the keep, through the index (their rows stay, marked log_kept 0), so no game end
scans the folder.

A write the disk refuses (full, read-only, failing) pauses indexing with words in the host's
log; the games wait in order and are written when the disk takes them again: tried again
every RETRY_S whatever else comes meanwhile (requests do not put the retry off), and at each
new game. Requests are still answered meanwhile.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from protocol.gamelog import LogError

from .index import SeatOutcome, ended_logs_in_order, index_game, index_log, read_ended
from .jobs import GAME, STOP, Job, JobQueue
from .schema import BUILT_BY_TODAYS_RULES, NewerSchema, migrate

log = logging.getLogger("kismet.host")

FILE_NAME = "records.sqlite3"
RETRY_S = 1.0
# SQLite virtual-machine steps between two looks, while a request runs, for a game waiting
# (a look costs a few hundred nanoseconds; a thousand steps, some microseconds).
INTERRUPT_EVERY = 1000


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the records file, in WAL mode (readers never wait for the writer)."""
    # (Python's default transactions: a write begins one, `with db:` commits it.)
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; the logs are the record
    db.execute("PRAGMA busy_timeout = 5000")
    return db


def open_checked(path: Path, damaged_dir: Path) -> tuple[sqlite3.Connection, list[str], bool]:
    """The records database at `path`, migrated; a damaged or newer one set aside first.
    Returns (connection, words for the host's start-up lines, whether it must be rebuilt)."""
    words: list[str] = []
    fresh = not path.exists()
    db: sqlite3.Connection | None = None
    try:
        db = connect(path)
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("its pages do not check out")
        found = migrate(db)
        if 0 < found < BUILT_BY_TODAYS_RULES:
            words.append(
                f"The records were made by an older host (records version {found}): "
                "rebuilding them from the game logs, so every rating and figure follows today's rules."
            )
        return db, words, fresh or 0 < found < BUILT_BY_TODAYS_RULES
    except (sqlite3.DatabaseError, NewerSchema) as exc:
        if db is not None:
            db.close()
        if isinstance(exc, sqlite3.Error) and is_disk_trouble(exc):
            raise  # a full or failing disk is no damage: the file is kept, and opened later
        folder = set_aside(
            path,
            damaged_dir,
            f"The records database was set aside: {exc}. It is rebuilt from the game logs.",
        )
        words.append(
            f"The records database was set aside into {folder} ({exc}); "
            "rebuilding it from the game logs."
        )
    db = connect(path)
    migrate(db)
    return db, words, True


def set_aside(path: Path, damaged_dir: Path, why: str) -> Path:
    folder = damaged_dir / f"records-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    n = 1
    while folder.exists():
        n += 1
        folder = folder.with_name(folder.name.split("~")[0] + f"~{n}")
    folder.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        part = path.with_name(path.name + suffix)
        if part.exists():
            os.replace(part, folder / part.name)
    (folder / "why.txt").write_text(why + "\n")
    return folder


def rebuild(
    db: sqlite3.Connection, games_dir: Path, host_since: float | None = None
) -> tuple[int, list[str]]:
    """Empty the index and index every finished log in `games_dir` again, in the order the
    games ended. Returns (games indexed, words for each log that could not be read)."""
    with db:
        for table in ("seats", "games", "players", "standings"):
            db.execute(f"DELETE FROM {table}")
    return catch_up(db, games_dir, host_since)


def running_logs(state_dir: Path) -> set[str]:
    """The logs of the games a host goes on with: those its table files name."""
    names = set()
    for path in (state_dir / "tables").glob("*.json"):
        try:
            names.add(json.loads(path.read_text()).get("game_file"))
        except (OSError, ValueError, AttributeError):
            continue  # resume sets such a table aside, its files with it
    return names


def catch_up(
    db: sqlite3.Connection, games_dir: Path, host_since: float | None = None
) -> tuple[int, list[str]]:
    """Index the logs of games that are over which the index does not hold yet (a host
    stopped between a log's end and its row); (how many, words for the unreadable ones)."""
    # A kept row's log is the file of that name (a name is only given again once its log
    # is gone); any other file is read, and index_game knows it by its name and start.
    known = {row[0] for row in db.execute("SELECT log_file FROM games WHERE log_kept = 1")}
    games, unreadable = ended_logs_in_order(
        games_dir, known, running_logs(games_dir.parent), host_since
    )
    for game in games:
        index_game(db, game)
    return len(games), unreadable


def is_disk_trouble(exc: sqlite3.Error) -> bool:
    """A write the disk refused (full, read-only, I/O), as opposed to a bug in the SQL."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


class RecordIndex:
    """The records of one state folder, kept by one worker thread (see the module's words)."""

    def __init__(self, state_dir: str | Path, keep_games: int | None = None) -> None:
        root = Path(state_dir)
        self.path = root / FILE_NAME
        self.games_dir = root / "games"
        self.damaged_dir = root / "damaged"
        self.keep_games = keep_games
        self._jobs = JobQueue()
        # Games the disk did not take yet: ((path, closed unfinished), callback).
        self._waiting: list[tuple[tuple[Path, bool], Callable | None]] = []
        self._paused_words: str | None = None
        self._retry_at = 0.0  # (time.monotonic()) the next try of the games waiting for the disk
        self._thread: threading.Thread | None = None
        self.db: sqlite3.Connection | None = None  # the worker's (tests read it after close)
        self.start_words: list[str] = []
        self.started_at: float | None = None  # logs written since are this host's games
        # Set once open and caught up (or once it knows the disk will not let it open yet).
        self.ready = threading.Event()

    # ---- from the event loop ---------------------------------------------------------------
    def start(self) -> None:
        """Open (and catch up, or rebuild) on the worker thread; returns at once. Call it
        before the host starts any game: a log written from now on is the host's own."""
        self.started_at = time.time()
        self._thread = threading.Thread(target=self._run, name="kismet-records", daemon=True)
        self._thread.start()

    def game_ended(
        self, path: Path, then: Callable[[list[SeatOutcome] | None], None] | None = None
    ) -> None:
        """Index the finished log at `path`; `then(outcomes)` is called on the worker thread."""
        self._jobs.put_game((path, False), then)

    def game_closed(self, path: Path) -> None:
        """The game in `path` was closed unfinished (everyone left): indexed as such, so
        keep_games prunes its log in its turn."""
        self._jobs.put_game((path, True), None)

    def ask(
        self,
        question: Callable[[sqlite3.Connection], Any],
        then: Callable[[Any], None],
        asker: Hashable = None,
    ) -> None:
        """Run `question(db)` on the worker, after the games waiting and in `asker`'s fair turn
        (jobs.py); `then(answer)` on the worker thread (an exception it raised is the answer)."""
        self._jobs.put_ask(question, then, asker)

    def close(self) -> None:
        """Finish the jobs queued so far, then stop (blocks: call off the loop)."""
        if self._thread is None:
            return
        self._jobs.put_stop()
        self._thread.join()
        self._thread = None

    @property
    def paused(self) -> str | None:
        """Why indexing waits for the disk, or None."""
        return self._paused_words

    # ---- on the worker thread --------------------------------------------------------------
    def _run(self) -> None:
        while self.db is None:
            try:
                self.db = self._open()
            except (sqlite3.Error, OSError) as exc:
                if isinstance(exc, sqlite3.Error) and not is_disk_trouble(exc):
                    log.exception("the records database cannot be opened; records are off")
                    self.ready.set()
                    self._drain_without_db()
                    return
                if self._paused_words is None:  # a full or failing disk: try again later
                    self._paused_words = (
                        f"The records cannot open their file ({exc}); they try again by themselves."
                    )
                    log.warning("%s", self._paused_words)
                self.ready.set()
                if not self._wait_for_disk():
                    return
        if self._paused_words is not None:
            log.info("The records opened their file: caught up.")
            self._paused_words = None
        self._write_waiting()  # games that ended while the file could not be opened
        self.ready.set()
        while True:
            # Games waiting for the disk are tried again at their time, however many
            # requests come meanwhile: a request never puts the retry off.
            job = self._jobs.get(
                max(0.0, self._retry_at - time.monotonic()) if self._waiting else None
            )
            if job is None or job.kind == STOP:
                self._write_waiting()
                if job is None:
                    continue
                self.db.close()
                return
            if job.kind == GAME:
                self._waiting.append((job.what, job.then))
                self._write_waiting()
            else:
                self._answer(job)
                if self._waiting and time.monotonic() >= self._retry_at:
                    self._write_waiting()

    def _open(self) -> sqlite3.Connection:
        self.games_dir.mkdir(parents=True, exist_ok=True)
        db, words, must_rebuild = open_checked(self.path, self.damaged_dir)
        if must_rebuild:
            count, unreadable = rebuild(db, self.games_dir, self.started_at)
            if count or unreadable or words:
                words.append(f"The records were built from {count} game logs.")
        else:
            count, unreadable = catch_up(db, self.games_dir, self.started_at)
            if count:
                words.append(f"The records took in {count} games they had missed.")
        words += [f"Left out of the records: {why}" for why in unreadable]
        self.start_words = words
        for line in words:
            log.info("%s", line)
        self._prune(db)
        return db

    def _write_waiting(self) -> None:
        assert self.db is not None
        while self._waiting:
            (path, unfinished), then = self._waiting[0]
            try:
                outcomes = index_log(self.db, path, unfinished)
            except LogError as exc:
                log.warning("Left out of the records: %s", exc)
                outcomes = None
            except sqlite3.Error as exc:
                if not is_disk_trouble(exc):
                    log.exception("indexing %s failed", path.name)
                    outcomes = None
                else:
                    if self._paused_words is None:
                        self._paused_words = (
                            f"The records wait for the disk ({exc}); they catch up by themselves."
                        )
                        log.warning("%s", self._paused_words)
                    self._retry_at = time.monotonic() + RETRY_S
                    return
            if self._paused_words is not None:
                log.info("The records can write again: caught up.")
                self._paused_words = None
            self._waiting.pop(0)
            self._call(then, outcomes)
            self._prune(self.db)

    def _answer(self, job: Job) -> None:
        db = self.db
        try:
            if db is None:  # (the file could not be opened: the asker words it)
                raise sqlite3.OperationalError("the records are not open")
            # A game's end arriving meanwhile stops the request (SQLite raises "interrupted")
            # and is written first; the request then runs again, first among the requests.
            db.set_progress_handler(self._jobs.games_waiting, INTERRUPT_EVERY)
            try:
                answer = job.what(db)
            finally:
                db.set_progress_handler(None, 0)
        except sqlite3.OperationalError as exc:
            if self._jobs.games_waiting() and "interrupt" in str(exc):
                self._jobs.put_back(job)
                return
            answer = exc
        except Exception as exc:  # (any: handed to the asker, who words it)
            answer = exc
        self._call(job.then, answer)

    @staticmethod
    def _call(then: Callable[[Any], None] | None, value: object) -> None:
        if then is None:
            return
        try:
            then(value)
        except Exception:
            log.exception("a records callback failed")

    def _wait_for_disk(self) -> bool:
        """While the file cannot be opened: games wait in order, requests get an error, for
        RETRY_S; False once asked to stop."""
        deadline = time.monotonic() + RETRY_S
        while (left := deadline - time.monotonic()) > 0:
            job = self._jobs.get(left)
            if job is None:
                break
            if job.kind == STOP:
                return False
            if job.kind == GAME:
                self._waiting.append((job.what, job.then))
            else:
                self._call(job.then, RuntimeError("The records wait for the disk."))
        return True

    def _drain_without_db(self) -> None:
        """No database: every request still gets an answer (an error), none waits forever."""
        while True:
            job = self._jobs.get()
            assert job is not None  # (no timeout: a job)
            if job.kind == STOP:
                return
            self._call(
                job.then,
                None if job.kind == GAME else RuntimeError("The records are off on this host."),
            )

    def _prune(self, db: sqlite3.Connection) -> None:
        """Remove the oldest kept logs beyond keep_games, through the index: their rows stay."""
        if self.keep_games is None:
            return
        kept = db.execute("SELECT COUNT(*) FROM games WHERE log_kept = 1").fetchone()[0]
        if kept <= self.keep_games:
            return
        oldest = db.execute(
            "SELECT id, log_file FROM games WHERE log_kept = 1 ORDER BY ended_ms, id LIMIT ?",
            (kept - self.keep_games,),
        ).fetchall()
        # Marked first, removed after: a host killed between the two leaves a file too many
        # (read again and known at the next start), never a kept row without its file.
        with db:
            for game_id, _log_file in oldest:
                db.execute("UPDATE games SET log_kept = 0 WHERE id = ?", (game_id,))
        for _game_id, log_file in oldest:
            try:
                (self.games_dir / log_file).unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("could not remove the old game log %s: %s", log_file, exc)


__all__ = [
    "FILE_NAME",
    "RecordIndex",
    "SeatOutcome",
    "catch_up",
    "connect",
    "open_checked",
    "rebuild",
    "read_ended",
]
