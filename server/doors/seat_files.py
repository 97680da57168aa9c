"""Where the doors keep their players' rejoin tokens, and when those are thrown away.

Each ssh login (a NAME with its key, or with its rejoin code) and each browser (its secret)
has a folder of its own in the state folder, `ssh-seats/DIGEST/` or `web-seats/DIGEST/`,
holding the one file its `kismet-join` reads and writes (kismet_tui/saved_seats.py): the
session may write there and nowhere else (server/doors/session_sandbox.py). A browser without a
secret gets a folder for its visit only.

A folder is kept while the host holds one of the tokens in it (its player connected, or
seated at a table, or words kept for their next hello), and while a session uses it; once
neither, it is removed: looked at a moment after its session ends (the host has then heard
the client go), and every SWEEP_SECONDS for those whose seats went later (a game ended, a
table closed). A folder touched within GRACE_SECONDS is left alone, so one being made for a
login that is starting is never taken from under it. Files of the old layout
(`ssh-seats/DIGEST.json`) are moved into their folder when their player comes back, and
pruned like folders otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from kismet_tui.saved_seats import FILE_NAME as TOKENS_FILE

if TYPE_CHECKING:
    from ..host import Host

log = logging.getLogger("kismet.doors")

SWEEP_SECONDS = 60.0
AFTER_SESSION_SECONDS = 2.0  # the host hears a client go within this of its process ending
GRACE_SECONDS = 30.0


def held_tokens(host: Host) -> set[str]:
    """Every token the host still knows a player by: connected, seated, or owed words."""
    held = {
        token
        for token, player in host.players.items()
        if player.conn is not None or player.table is not None
    }
    held.update(seat.token for table in host.tables.values() for seat in table.seats)
    held.update(host.set_aside)
    return held


def tokens_in(path: Path) -> set[str] | None:
    """The tokens saved in a tokens file; None when it cannot be read as one (kept, then:
    its owner is told it was damaged when they come back)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return set()
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return {token for token in data.values() if isinstance(token, str)}


class SeatFolders:
    """The seat folders of one door (`kind`: "ssh-seats" or "web-seats") of `host`."""

    def __init__(self, host: Host, state_dir: str | Path, kind: str) -> None:
        self.host = host
        self.root = Path(state_dir) / kind
        self.in_use: Counter[str] = Counter()  # digest -> sessions using its folder now
        self._sweeper: asyncio.Task[None] | None = None

    def folder(self, digest: str) -> Path:
        """The folder for `digest` (made, readable by the host's user alone)."""
        folder = self.root / digest
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        old = self.root / f"{digest}.json"  # (the layout before folders)
        if old.exists() and not (folder / TOKENS_FILE).exists():
            with contextlib.suppress(OSError):
                os.replace(old, folder / TOKENS_FILE)
        return folder

    def tokens_file(self, digest: str) -> Path:
        return self.folder(digest) / TOKENS_FILE

    @staticmethod
    def once() -> str:
        """A digest for one visit only (a browser with no secret)."""
        return "once-" + secrets.token_hex(16)

    def using(self, digest: str) -> None:
        """A session has started on `digest`'s folder."""
        self.in_use[digest] += 1

    def done(self, digest: str) -> None:
        """That session has ended: its folder is looked at a moment later."""
        self.in_use[digest] -= 1
        if self.in_use[digest] <= 0:
            del self.in_use[digest]
        asyncio.get_running_loop().call_later(AFTER_SESSION_SECONDS, self.prune, digest)

    def prune(self, digest: str) -> bool:
        """Remove `digest`'s folder if no session uses it and the host holds none of its
        tokens; True when it was removed. (Ignores the grace: its session has ended.)"""
        if digest in self.in_use:
            return False
        return self._prune(self.root / digest, held_tokens(self.host), grace=0.0)

    def start(self) -> None:
        """Sweep now and every SWEEP_SECONDS until stop()."""
        self._sweeper = asyncio.ensure_future(self._sweep_forever())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None

    async def _sweep_forever(self) -> None:
        while True:
            held, busy = held_tokens(self.host), set(self.in_use)
            try:
                removed = await asyncio.to_thread(self.sweep, held, busy)
            except OSError as exc:
                log.warning(
                    "the seat folders in %s could not be looked through: %s", self.root, exc
                )
            else:
                if removed:
                    log.info(
                        "%d seat folder(s) of players gone removed from %s", removed, self.root
                    )
            await asyncio.sleep(SWEEP_SECONDS)

    def sweep(self, held: set[str], busy: set[str]) -> int:
        """Remove every folder (or old file) no session in `busy` uses and whose tokens are
        none of `held`; how many were removed. Runs on a thread: it reads every file."""
        if not self.root.is_dir():
            return 0
        removed = 0
        for entry in self.root.iterdir():
            digest = entry.name.removesuffix(".json")
            if digest not in busy and (entry.is_dir() or entry.suffix == ".json"):
                removed += self._prune(entry, held, GRACE_SECONDS)
        return removed

    @staticmethod
    def _prune(entry: Path, held: set[str], grace: float) -> bool:
        try:
            if time.time() - entry.stat().st_mtime < grace:
                return False
        except FileNotFoundError:
            return False
        tokens = tokens_in(entry / TOKENS_FILE if entry.is_dir() else entry)
        if tokens is None or tokens & held:
            return False
        try:
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except OSError:
            return False
        return True
