"""The `records` request: a page of the records, answered off the event loop.

The handler only hands the question to the records' worker thread (server/records/) and
returns; the answer comes back through the loop (call_soon_threadsafe) and goes to the
connection that asked, if it is still open. A player is "me" by their records id, so the
player view with no `player` is the asker's own page. `RecordsAsked` holds what it needs:
the records, how many requests of each connection are still waiting, and each player's
allowance.

Requests are limited per player, not only per connection: a token bucket (PER_SECOND, bursts
of BURST) for the player (their records id, else their rejoin token) and, where the host caps
addresses (not loopback unless --cap-loopback), one for their address too, so eight
connections or fresh keys from one address share one allowance. A request over it is refused
at once, in words (`slow_down`), and never queued. What is queued takes fair turns with the
other players' requests and waits behind every game's end (server/records/jobs.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection
from typing import Protocol

from protocol.errors import ProtocolError, error_message
from protocol.host_messages import RecordsPage
from protocol.requests import Records

from .connection import Connection, Gate
from .peer_cap import address_of
from .records import RecordIndex, queries
from .token_bucket import TokenBucket

log = logging.getLogger("kismet.host")

# Requests of one connection waiting for the records' thread at once: a flood of deep pages
# waits at the door, not in the thread's queue (where every other player's games wait too).
MAX_WAITING = 4
# Each player's (and capped address's) allowance: a person paging through the records asks
# a page or two a second, and a burst when the records screen opens.
PER_SECOND = 2.0
BURST = 8
# Allowances kept at once: past it, the full ones (nobody asked lately) are forgotten.
KEPT_MOST = 4096


class RecordsAsked:
    """The records, the requests of each connection not answered yet, and the allowances."""

    __slots__ = ("records", "waiting", "allowances")

    def __init__(self, records: RecordIndex) -> None:
        self.records = records
        self.waiting: dict[Connection, int] = {}
        self.allowances: dict[str, TokenBucket] = {}  # BURST at once, then PER_SECOND

    def take(self, keys: tuple[str, ...], now: float) -> bool:
        """One request from the allowance of every key, or False (and nothing taken)."""
        allowances = self.allowances
        if len(allowances) > KEPT_MOST:
            for key in [k for k, a in allowances.items() if a.refill(now) >= BURST]:
                del allowances[key]
        mine = [
            allowances.get(key) or allowances.setdefault(key, TokenBucket(BURST, PER_SECOND, now))
            for key in keys
        ]
        if any(allowance.refill(now) < 1 for allowance in mine):
            return False
        for allowance in mine:
            allowance.spend(1)
        return True


class RecordsHost(Protocol):
    """What the `records` request needs of the host."""

    gate: Gate

    @property
    def records_asked(self) -> RecordsAsked: ...

    def bot_levels(self) -> Collection[str] | None: ...


def askers_of(host: RecordsHost, conn: Connection) -> tuple[str, ...]:
    """Whose allowance a request takes from: the player's, and their address's where the
    host caps addresses (the last one names the asker whose turn it takes)."""
    player = conn.known_player
    proven = player.records_id()
    keys = [f"player {proven}" if proven else f"token {player.token}"]
    address = conn.door.address if conn.door is not None else address_of(conn.peer)
    if not host.gate.per_address.exempts(address):
        keys.append(f"address {address}")
    return tuple(keys)


def on_records(host: RecordsHost, conn: Connection, msg: Records, re: int | None) -> None:
    asked = host.records_asked
    waiting = asked.waiting
    if waiting.get(conn, 0) >= MAX_WAITING:
        raise ProtocolError(
            "slow_down",
            "The records are still looking up what you asked: one moment, then ask again.",
        )
    keys = askers_of(host, conn)
    if not asked.take(keys, time.monotonic()):
        raise ProtocolError(
            "slow_down",
            f"You asked for many pages of the records in a short "
            f"while: please wait a moment, then ask again (each player may ask "
            f"for {PER_SECOND:g} a second, {BURST} at once).",
        )
    me = conn.player.records_id() if conn.player is not None else None
    loop = asyncio.get_running_loop()  # (handlers run on the host's loop)
    waiting[conn] = waiting.get(conn, 0) + 1

    def answered(answer: RecordsPage | BaseException) -> None:  # on the records' thread
        if not loop.is_closed():
            loop.call_soon_threadsafe(_send, waiting, conn, msg, re, me, answer)

    levels = host.bot_levels()
    asked.records.ask(lambda db: queries.answer(db, msg, me, levels), answered, asker=keys[-1])


def _send(
    waiting: dict[Connection, int],
    conn: Connection,
    msg: Records,
    re: int | None,
    me: str | None,
    answer: RecordsPage | BaseException,
) -> None:
    left = waiting.pop(conn, 1) - 1
    if left > 0:
        waiting[conn] = left
    if conn.closed:
        return
    if isinstance(answer, ProtocolError):  # a value the records do not know (a bot level)
        conn.error(answer.code, answer.words, re)
        return
    if isinstance(answer, BaseException):
        log.warning("a records request failed: %s", answer)
        conn.send(error_message("no_records", re=re))
        return
    conn.send(
        {
            "type": "records",
            "re": re,
            "view": msg["view"],
            "ruleset": msg["ruleset"],
            "page": msg["page"],
            "me": me,
            **answer,
        }
    )
