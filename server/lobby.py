"""The lobby's requests: tables listed, opened, joined, left and closed, and what members
do at a table between games.

Owns `list_tables`, `create_table` (options checked by the engine, bot seats reserved and
their bots started), `join_table` (a seat or a place among the watchers), `leave`, `ready`,
`reorder`, `chat` (within the budgets of server/chat.py) and the owner's `mute_watchers`,
and `remove` (checked and carried out by server/steering.py); a member's arrival (everyone told, the newcomer caught up, a running game's seat marked back)
and departure (a seat freed between games, marked away during one), who owns a table when
its owner goes, and a table's closing. The owner's `start` is server/starting.py.
"""

from __future__ import annotations

import secrets
import time

from kismet_tui.rules import HOST, IllegalAction, game_module, normalize_options
from protocol import limits
from protocol.errors import ProtocolError
from protocol.requests import (
    Chat,
    CreateTable,
    JoinTable,
    Leave,
    ListTables,
    MuteWatchers,
    Ready,
    Remove,
    Reorder,
)

from . import starting, steering, table_share
from .chance import valid_entropy
from .connection import Connection
from .jobs import Jobs
from .player import Player
from .table import PLAYING, Table


def on_list_tables(host: Jobs, conn: Connection, msg: ListTables, re: int | None) -> None:
    host.table_list.answer(conn, re, msg["changes"])
    if conn.door is not None and conn.door.listed is not None:
        conn.door.listed()  # a door session's lobby: its start-up ends (doors/door_starts.py)


def on_create_table(host: Jobs, conn: Connection, msg: CreateTable, re: int | None) -> None:
    player = conn.known_player
    if player.table is not None:
        raise ProtocolError("already_at_table")
    if len(host.tables) >= limits.MAX_TABLES:
        raise ProtocolError(
            "full",
            f"The host holds {limits.MAX_TABLES} tables, its most: please "
            f"sit at one of them, or try again later (a table closes when its "
            f"players have left it).",
        )
    keys = table_share.keys_of(host, conn)
    try:
        options = normalize_options(msg["ruleset"], msg["options"])
        cls = game_module(msg["ruleset"]).GAME
    except IllegalAction as exc:
        raise ProtocolError("bad_options", exc.words) from None
    leave_paused(host, conn)
    table_share.check_share(host, keys)
    bots = msg["bots"]
    if bots and not host.can_run_bots():
        raise ProtocolError("no_bots")
    table_share.check_bot_share(host, keys, len(bots))
    if bots and host.max_bots is not None and bot_count(host) + len(bots) > host.max_bots:
        raise ProtocolError(
            "no_bots",
            f"This host runs at most {host.max_bots} bots at once, "
            f"and {bot_count(host)} are playing: please try again in a while.",
        )
    if 1 + len(bots) > cls.MAX_SEATS:
        raise ProtocolError(
            "bad_options", f"{msg['ruleset']} seats at most {cls.MAX_SEATS} players."
        )
    known = host.bot_levels()
    for level in bots:
        if known is not None and level not in known:
            raise ProtocolError(
                "bad_message",
                f"There is no bot level '{level}' on this host. "
                f"The levels are: {', '.join(sorted(known))}.",
            )
    table = Table(host, host.store.allocate_table_id(), msg["ruleset"], options, player.token)
    table.opened_by = keys
    host.tables[table.id] = table
    table.sit(player.token, player.name)
    player.table = table
    for number, level in enumerate(bots, start=1):
        table.sit(secrets.token_urlsafe(18), f"Bot {number} ({level})", bot=level, ready=True)
    table.send_table()
    for seat in table.seats:
        if seat.bot:
            host.spawn_bot(table, seat)
    conn.ok(re)


def leave_paused(host: Jobs, conn: Connection) -> None:
    """A new game instead of a paused one (`kismet`'s own host): the paused game is left for
    good, closed unfinished with its player away, so the records rank them last
    (protocol/leavers.py), and they are told so."""
    player = conn.known_player
    for table in list(host.tables.values()):
        if table.paused_at is None or table.seat_of(player.token) is None:
            continue
        close_table(host, table)
        conn.send(
            {
                "type": "notice",
                "code": "left",
                "words": f"You left your paused game at table {table.id} for good: it counts as lost.",
            }
        )


def bot_count(host: Jobs) -> int:
    return sum(1 for t in host.tables.values() for s in t.seats if s.bot)


def on_join_table(host: Jobs, conn: Connection, msg: JoinTable, re: int | None) -> None:
    player = conn.known_player
    table = host.tables.get(msg["table"])
    if table is None:
        raise ProtocolError("no_table", f"There is no table {msg['table']}.")
    if player.table is not None and player.table is not table:
        raise ProtocolError("already_at_table")
    seated_here = table.seat_of(player.token) is not None
    if msg["spectator"] and not seated_here:
        table.watch(player.token)
    elif not seated_here:
        if host.steering.was_removed(table, player.token):
            raise ProtocolError(
                "removed",
                "The owner removed you from this table: you can watch it, or sit at another.",
            )
        if table.state == PLAYING:
            raise ProtocolError("playing", "A game is running at this table: you can watch it.")
        if len(table.seats) >= table.max_seats():
            raise ProtocolError(
                "table_full",
                f"Table {table.id} has no free seat: "
                f"{len(table.seats)} of {table.max_seats()} are taken.",
            )
        table.sit(player.token, player.name)  # (a watcher who sits down watches no more)
        if table.owner is None:
            table.set_owner(player.token)
    player.table = table
    arrive(host, table, player, rejoin=False)
    conn.ok(re)


def arrive(host: Jobs, table: Table, player: Player, rejoin: bool) -> None:
    """A member (new or returning) is at the table: tell everyone, catch them up."""
    seat = table.seat_of(player.token)
    if seat is not None and table.state != PLAYING and not table.seats[seat].bot:
        table.rename(seat, player.name)
    table.send_table()
    # Arriving means connected: on_hello and on_join_table call this once the player's
    # connection is theirs.
    assert player.conn is not None
    if table.header is not None:
        player.conn.send(table.game_message())
    going_on = table.paused_at is not None and seat is not None and not table.seats[seat].bot
    if going_on:
        table.go_on()  # its player is back: the clock runs again, as far from its deadline
    if table.state == PLAYING and seat is not None and table.running.away[seat]:
        table.stamp(HOST, {"type": "back", "seat": seat})
        table.send_table()
    elif going_on:
        table.reschedule()
        table.send_table()
    if table.pending_start is not None and not starting.bots_missing(table):
        starting.start_now(host, table)
    table_share.look_again(host, table)  # a closing clock stops: somebody is back


def on_leave(host: Jobs, conn: Connection, msg: Leave, re: int | None) -> None:
    player = conn.known_player
    if player.table is None:
        raise ProtocolError("not_at_table")
    depart(host, player)
    conn.ok(re)


def depart(host: Jobs, player: Player) -> None:
    """The player leaves their table (explicitly or by dropping)."""
    table = player.table
    player.table = None
    if table is None:
        return
    table.unwatch(player.token)
    seat = table.seat_of(player.token)
    if seat is not None:
        if table.state == PLAYING:
            if not table.running.away[seat]:
                table.stamp(HOST, {"type": "away", "seat": seat})
        else:
            table.unseat(seat)
    if table.owner == player.token and (table.state != PLAYING or seat is None):
        table.pass_ownership()
    if table.state != PLAYING and not table_share.any_player_here(table):
        close_table(host, table, f"Table {table.id} closed: its last player left.")
        return
    if table.state == PLAYING:
        table_share.look_again(host, table)
    table.send_table()


def close_table(host: Jobs, table: Table, words: str | None = None) -> None:
    """The table closes; its members still here (watchers) are told `words` first, if any."""
    unfinished = table.writer.path if table.writer is not None else None  # a game everyone left
    members = [host.players.get(token) for token in table.member_tokens()]
    table.close(words)
    for member in members:
        if member is not None and member.table is table:
            member.table = None
    host.store.drop_table(table.id)
    if unfinished is not None:
        host.records.game_closed(unfinished)  # its log is pruned in its turn, like the others
    host.tables.pop(table.id, None)
    host.table_list.changed()
    host.steering.forget(table)


def seated(conn: Connection) -> tuple[Table, int]:
    """The table and seat of the connection's player, or the words for why not."""
    table = conn.known_player.table
    if table is None:
        raise ProtocolError("not_at_table")
    seat = table.seat_of(conn.known_player.token)
    if seat is None:
        raise ProtocolError("not_seated")
    return table, seat


def on_ready(host: Jobs, conn: Connection, msg: Ready, re: int | None) -> None:
    table, seat = seated(conn)
    if table.state == PLAYING:
        raise ProtocolError("playing")
    table.set_ready(seat, msg["ready"], valid_entropy(msg.get("entropy")) if msg["ready"] else None)
    table.send_table()
    conn.ok(re)
    if table.pending_start is not None and not starting.bots_missing(table):
        starting.start_now(host, table)  # the last bot's entropy arrived


def on_reorder(host: Jobs, conn: Connection, msg: Reorder, re: int | None) -> None:
    table = steering.owners_table(
        conn,
        "Only the table's owner can change the seat order.",
        "The seats cannot move while a game is running.",
    )
    order = msg["order"]
    if sorted(order) != list(range(len(table.seats))):
        raise ProtocolError(
            "bad_message", f"'order' must list each seat 0 to {len(table.seats) - 1} once."
        )
    table.reorder(order)
    table.send_table()
    conn.ok(re)


def on_remove(host: Jobs, conn: Connection, msg: Remove, re: int | None) -> None:
    table = conn.known_player.table
    if table is None:
        raise ProtocolError("not_at_table")
    host.steering.check_removable(table, conn.known_player.token, msg["seat"])
    name = table.seats[msg["seat"]].name
    host.steering.remove_seat(
        table,
        msg["seat"],
        f"{conn.known_player.name}, the owner, removed you from table {table.id}.",
        f"{conn.known_player.name} removed {name} from the table.",
    )
    conn.ok(re)


def on_chat(host: Jobs, conn: Connection, msg: Chat, re: int | None) -> None:
    player = conn.known_player
    table = player.table
    if table is None:
        raise ProtocolError("not_at_table", "Chat happens at a table: join one first.")
    if msg["text"]:
        # Within the sender's budget and, for a watcher, the watchers' (server/chat.py).
        table.chat.take(player.token, table.seat_of(player.token) is not None, time.monotonic())
        table.broadcast_chat(
            {
                "type": "chat",
                "from": player.client_id,
                "name": player.name,
                "text": msg["text"],
                "t": host.now_ms(),
            }
        )
    conn.ok(re)


def on_mute_watchers(host: Jobs, conn: Connection, msg: MuteWatchers, re: int | None) -> None:
    """The owner turns the watchers' chat off or on; every member is told in words."""
    player = conn.known_player
    table = player.table
    if table is None:
        raise ProtocolError("not_at_table")
    if table.owner != player.token:
        raise ProtocolError(
            "not_owner", "Only the table's owner can turn the watchers' chat off or on."
        )
    if table.chat.watchers_muted != msg["muted"]:
        table.chat.watchers_muted = msg["muted"]
        table.send_table()
        words = (
            f"{player.name}, the table's owner, turned off the watchers' chat: only the "
            f"players can talk here now."
            if msg["muted"]
            else f"{player.name}, the table's owner, turned the watchers' chat back on."
        )
        table.broadcast({"type": "notice", "code": "watchers_muted", "words": words})
    conn.ok(re)
