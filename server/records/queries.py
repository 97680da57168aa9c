"""The questions the records answer (a `records` request's views), each one page of rows.

Every view gives plain maps for the wire (the answer to a `records` request, declared in
protocol/requests.py). A page is PAGE_SIZE rows; `more` says whether a next page exists (one
row more is asked for, so no count over the whole table is needed). Every page reads rows in
the order of an index made for it (server/records/schema.py), never sorting and never
scanning every game, so a first page costs the same at 300,000 games as at 10
(benchmarks/records.py; its plans are checked by tests/test_records_plans.py); a deep page
reads the index up to its offset.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection

from protocol.errors import ProtocolError
from protocol.host_messages import (
    CostTrend,
    GameRow,
    LeaderRow,
    ReactionTrend,
    RecordSeat,
    RecordsPage,
    Standing,
)
from protocol.limits import MIN_RATED_GAMES
from protocol.requests import Records

PAGE_SIZE = 10
VIEWS = ("leaderboard", "recent", "player", "best")


def shown_name(player_id: str, name: str) -> str:
    """A player's name on the pages: a bot level is one player ("bot:medium"), shown as
    "Medium bot", not under whichever seat name ("Bot 2 (medium)") it had last."""
    if player_id.startswith("bot:"):
        return f"{player_id[4:].capitalize()} bot"
    return name


def _page(rows: list) -> tuple[list, bool]:
    return rows[:PAGE_SIZE], len(rows) > PAGE_SIZE


def _limits(page: int) -> tuple[int, int]:
    return PAGE_SIZE + 1, page * PAGE_SIZE


def leaderboard(db: sqlite3.Connection, ruleset: str, page: int = 0) -> RecordsPage:
    """The players of `ruleset` by rating, best first (ties by id, so pages never overlap):
    only those with MIN_RATED_GAMES rated games (a made-up key is a newcomer, not a leader),
    read from the index of listed players (schema.py)."""
    rows = db.execute(
        "SELECT s.player_id, p.name, p.is_bot, s.rating, s.games, s.wins, s.best FROM standings s "
        f"JOIN players p ON p.id = s.player_id WHERE s.ruleset = ? AND s.rated >= {MIN_RATED_GAMES} "
        "ORDER BY s.rating DESC, s.player_id DESC LIMIT ? OFFSET ?",
        (ruleset, *_limits(page)),
    ).fetchall()
    rows, more = _page(rows)
    leaders: list[LeaderRow] = [
        {
            "player": pid,
            "name": shown_name(pid, name),
            "bot": bool(bot),
            "rating": rating,
            "games": games,
            "wins": wins,
            "best": best,
        }
        for pid, name, bot, rating, games, wins, best in rows
    ]
    return {"rows": leaders, "more": more}


def _seats_of(db: sqlite3.Connection, game_ids: list[int]) -> dict[int, list[RecordSeat]]:
    seats: dict[int, list[RecordSeat]] = {game_id: [] for game_id in game_ids}
    if not game_ids:
        return seats
    marks = ", ".join("?" for _ in game_ids)
    for game_id, name, score, won, player, left in db.execute(
        f"SELECT game_id, name, score, won, player_id, left_game FROM seats WHERE game_id IN ({marks}) "
        "ORDER BY game_id, seat",
        game_ids,
    ):
        seats[game_id].append(
            {"name": name, "score": score, "won": bool(won), "player": player, "left": bool(left)}
        )
    return seats


def _game_row(row: tuple, seats: list[RecordSeat]) -> GameRow:
    game_id, log_file, ruleset, ended_ms, kept = row
    return {
        "game": game_id,
        "ruleset": ruleset,
        "ended": ended_ms,
        "log": log_file if kept else None,
        "seats": seats,
    }


def recent(db: sqlite3.Connection, ruleset: str | None = None, page: int = 0) -> RecordsPage:
    """The games that ended last, newest first (all rulesets, or one)."""
    where, args = ("AND ruleset = ? ", (ruleset,)) if ruleset else ("", ())
    rows = db.execute(
        f"SELECT id, log_file, ruleset, ended_ms, log_kept FROM games WHERE finished = 1 {where}"
        "ORDER BY ended_ms DESC, id DESC LIMIT ? OFFSET ?",
        (*args, *_limits(page)),
    ).fetchall()
    rows, more = _page(rows)
    seats = _seats_of(db, [row[0] for row in rows])
    return {"rows": [_game_row(row, seats[row[0]]) for row in rows], "more": more}


def player(
    db: sqlite3.Connection,
    player_id: str,
    page: int = 0,
    levels: Collection[str] | None = None,
    now_ms: int | None = None,
) -> RecordsPage:
    """One player's page: name, standing per ruleset (rating, games, wins, best, average),
    and their games, newest first, with their score and rating change. A bot level that is
    neither one of the host's `levels` nor in the records is an unknown value: bad_message."""
    found = db.execute("SELECT name, is_bot FROM players WHERE id = ?", (player_id,)).fetchone()
    if found is None:
        level = player_id.removeprefix("bot:")
        if player_id.startswith("bot:") and level not in (levels or ()):
            known = set(levels or ()) | {
                row[0].removeprefix("bot:")
                for row in db.execute("SELECT id FROM players WHERE is_bot = 1")
            }
            raise ProtocolError(
                "bad_message",
                f"There is no bot level '{level}'"
                + (
                    f". The levels are: {', '.join(sorted(known))}."
                    if known
                    else ": this host has no bots."
                ),
            )
        return {"found": False, "rows": [], "more": False}
    standings: list[Standing] = [
        {
            "ruleset": ruleset,
            "rating": rating,
            "games": games,
            "wins": wins,
            "best": best,
            "average": round(total / games) if games else 0,
            "rated": rated,
        }
        for ruleset, rating, games, wins, best, total, rated in db.execute(
            "SELECT ruleset, rating, games, wins, best, total, rated FROM standings "
            "WHERE player_id = ? ORDER BY ruleset",
            (player_id,),
        )
    ]
    rows = db.execute(
        "SELECT g.id, g.log_file, g.ruleset, g.ended_ms, g.log_kept, s.score, s.won, s.rating_before, "
        "s.rating_after, s.personal_best, g.finished FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = ? ORDER BY s.game_id DESC LIMIT ? OFFSET ?",
        (player_id, *_limits(page)),
    ).fetchall()
    rows, more = _page(rows)
    seats = _seats_of(db, [row[0] for row in rows])
    games = []
    for row in rows:
        game = _game_row(row[:5], seats[row[0]])
        score, won, before, after, best, finished = row[5:]
        game["score"] = score
        game["won"] = bool(won)
        game["best"] = bool(best)
        game["finished"] = bool(finished)
        game["change"] = after - before if before is not None and after is not None else None
        games.append(game)
    for standing in standings:
        if standing["ruleset"] == "race":
            standing["reaction"] = reaction_trend(db, player_id, now_ms)
        elif standing["ruleset"] == "dice":
            standing["review"] = cost_trend(db, player_id)
    return {
        "found": True,
        "player": player_id,
        "name": shown_name(player_id, found[0]),
        "bot": bool(found[1]),
        "standings": standings,
        "rows": games,
        "more": more,
    }


# The race reactions on a player's page: the medians of their last games, and their fastest
# median over the last 30 days (a month, whatever the calendar and the time zone).
TREND_GAMES = 12
MONTH_MS = 30 * 24 * 3600 * 1000


def _last_figures(db: sqlite3.Connection, player_id: str, column: str, ruleset: str) -> list[int]:
    """A seats column's figure (one of the review's, named by this module, never by a
    request) in the player's last TREND_GAMES games of `ruleset` that have one, oldest first."""
    rows = db.execute(
        f"SELECT s.{column} FROM seats s JOIN games g ON g.id = s.game_id "
        f"WHERE s.player_id = ? AND s.{column} IS NOT NULL AND g.ruleset = ? "
        "ORDER BY s.game_id DESC LIMIT ?",
        (player_id, ruleset, TREND_GAMES),
    ).fetchall()
    return [figure for (figure,) in reversed(rows)]


def cost_trend(db: sqlite3.Connection, player_id: str) -> CostTrend:
    """{"recent_centi": the dice review cost of the player's last TREND_GAMES reviewed dice
    games, in hundredths of a point, oldest first, "average_centi": over all their reviewed
    dice games, or None}."""
    average = db.execute(
        "SELECT AVG(s.dice_cost_centi) FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = ? AND s.dice_cost_centi IS NOT NULL AND g.ruleset = 'dice'",
        (player_id,),
    ).fetchone()[0]
    return {
        "recent_centi": _last_figures(db, player_id, "dice_cost_centi", "dice"),
        "average_centi": None if average is None else round(average),
    }


def reaction_trend(
    db: sqlite3.Connection, player_id: str, now_ms: int | None = None
) -> ReactionTrend:
    """{"recent_ms": medians of the last TREND_GAMES race games with a grab, oldest first,
    "fastest_month_ms": the lowest median of the last 30 days or None}."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    month = db.execute(
        "SELECT MIN(s.reaction_ms) FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = ? AND s.reaction_ms IS NOT NULL AND g.ruleset = 'race' "
        "AND g.ended_ms >= ?",
        (player_id, now_ms - MONTH_MS),
    ).fetchone()[0]
    return {
        "recent_ms": _last_figures(db, player_id, "reaction_ms", "race"),
        "fastest_month_ms": month,
    }


def best(
    db: sqlite3.Connection, ruleset: str = "dice", player_id: str | None = None
) -> RecordsPage:
    """The high scores: the best ten solo games of `ruleset` (everyone's, or one player's),
    with their date and replay."""
    # top_score is the solo seat's score, and solo_player its player: read in the order of
    # their index (games_best, games_best_of_player), never every seat. Games are indexed in
    # the order they ended, so among equal scores the lower id is the earlier game.
    who, args = ("g.solo_player = ? ", (player_id,)) if player_id else ("g.seat_count = 1 ", ())
    rows = db.execute(
        "SELECT g.id, g.log_file, g.ruleset, g.ended_ms, g.log_kept, s.name, s.score FROM games g "
        "JOIN seats s ON s.game_id = g.id WHERE g.ruleset = ? AND "
        + who
        + "ORDER BY g.top_score DESC, g.id LIMIT ?",
        (ruleset, *args, PAGE_SIZE),
    ).fetchall()
    seats = _seats_of(db, [row[0] for row in rows])
    games: list[GameRow] = [
        {**_game_row(row[:5], seats[row[0]]), "name": row[5], "score": row[6]} for row in rows
    ]
    return {"rows": games, "more": False}


def answer(
    db: sqlite3.Connection, request: Records, me: str | None, levels: Collection[str] | None = None
) -> RecordsPage:
    """The rows for a checked `records` request; `me` is the asker's records id, `levels`
    the host's bot levels (None: it runs no bots)."""
    view, page = request["view"], request["page"]
    if view == "leaderboard":
        return leaderboard(db, request["ruleset"] or "dice", page)
    if view == "recent":
        return recent(db, request["ruleset"], page)
    if view == "player":
        return player(db, request["player"] or me or "", page, levels)
    return best(db, request["ruleset"] or "dice", request["player"])
