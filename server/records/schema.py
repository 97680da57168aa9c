"""The records database's tables, its schema version and the migrations between versions.

The version is kept in the file itself (the `meta` table, key `schema`), so a database from an
older host is migrated step by step at open, never dropped; one from a newer host is refused
in words (the caller sets it aside and rebuilds). The SQL keeps to what SQLite and PostgreSQL
both run (docs/design.md, "Records past one machine"): plain types, `ON CONFLICT ... DO
UPDATE`, no SQLite-only functions; only the PRAGMAs at open are SQLite's own.
"""

from __future__ import annotations

import sqlite3

from protocol.limits import MIN_RATED_GAMES

SCHEMA_VERSION = 3

# MIN_RATED_GAMES (protocol/limits.py) is in the leaderboard's partial index (migration 1
# below): changing it takes a migration that makes that index again.

# The first version whose every row follows today's rules: its ratings (version 2: only
# distinct players rated, random bots never, a leaver ranked last: server/records/index.py)
# and its seats' figures read from the logs (version 3: race reactions, dice review costs). A file from before
# is migrated, then rebuilt from the logs, so every row in it follows them.
BUILT_BY_TODAYS_RULES = 3

# MIGRATIONS[n] takes a database at version n to n + 1 (version 0: an empty file).
MIGRATIONS: dict[int, tuple[str, ...]] = {
    0: (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        # One finished game (or one closed unfinished, finished 0: only its log, for pruning;
        # no seats, no result). log_file stays when the log is pruned (log_kept 0): a removed
        # replay's result is still a record. A pruned log's name can be given again to a new
        # game (the store names logs by the second they start), so a game is its log's name
        # and its start together.
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            log_file TEXT NOT NULL,
            ruleset TEXT NOT NULL,
            table_id INTEGER NOT NULL,
            started_ms BIGINT NOT NULL,
            ended_ms BIGINT NOT NULL,
            seat_count INTEGER NOT NULL,
            top_score INTEGER NOT NULL,
            finished INTEGER NOT NULL,
            log_kept INTEGER NOT NULL DEFAULT 1,
            UNIQUE (log_file, started_ms))""",
        "CREATE INDEX games_by_end ON games (ended_ms, id)",
        "CREATE INDEX games_by_ruleset ON games (ruleset, seat_count, ended_ms)",
        # The high scores: solo games by their score, without reading every seat.
        "CREATE INDEX games_by_top_score ON games (ruleset, seat_count, top_score)",
        "CREATE INDEX games_kept ON games (log_kept, ended_ms, id)",
        # One seat of a finished game; player_id is NULL for a player nothing proved.
        """CREATE TABLE seats (
            game_id INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            player_id TEXT,
            name TEXT NOT NULL,
            score INTEGER NOT NULL,
            won INTEGER NOT NULL,
            rating_before INTEGER,
            rating_after INTEGER,
            personal_best INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (game_id, seat))""",
        "CREATE INDEX seats_by_player ON seats (player_id, game_id)",
        # Who a proof is: shown under their latest (cleaned) name.
        """CREATE TABLE players (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            is_bot INTEGER NOT NULL,
            last_ms BIGINT NOT NULL)""",
        # A player's standing in one ruleset: openskill's mu and sigma, and what is shown.
        """CREATE TABLE standings (
            player_id TEXT NOT NULL,
            ruleset TEXT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            rating INTEGER NOT NULL,
            games INTEGER NOT NULL,
            wins INTEGER NOT NULL,
            best INTEGER NOT NULL,
            total BIGINT NOT NULL,
            PRIMARY KEY (player_id, ruleset))""",
        "CREATE INDEX standings_by_rating ON standings (ruleset, rating, player_id)",
    ),
    # Version 2: today's rating rules, and every page one indexed query, read in the order it
    # shows (no sort of its own, no scan of every game): tests/test_records_plans.py checks
    # each page's plan.
    1: (
        # How many of a player's games moved their rating (the leaderboard's minimum), and
        # whether a seat's player left the game for good (protocol/leavers.py).
        "ALTER TABLE standings ADD COLUMN rated INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE seats ADD COLUMN left_game INTEGER NOT NULL DEFAULT 0",
        # The leaderboard reads only listed players, best first, straight from this index.
        "CREATE INDEX standings_listed ON standings (ruleset, rating, player_id) "
        f"WHERE rated >= {MIN_RATED_GAMES}",
        # The player of a solo game (NULL for any other game, or an unproven player): one
        # player's high scores without reading every seat they sat in.
        "ALTER TABLE games ADD COLUMN solo_player TEXT",
        "UPDATE games SET solo_player = (SELECT s.player_id FROM seats s WHERE s.game_id = games.id) "
        "WHERE seat_count = 1 AND finished = 1",
        # The recent games, all rulesets or one, newest first.
        "CREATE INDEX games_recent ON games (finished, ended_ms, id)",
        "CREATE INDEX games_recent_by_ruleset ON games (ruleset, finished, ended_ms, id)",
        # The high scores, best first, the earlier game first among equal scores.
        "CREATE INDEX games_best ON games (ruleset, seat_count, top_score DESC, id)",
        "CREATE INDEX games_best_of_player ON games (solo_player, ruleset, top_score DESC, id)",
        # What these replace (each game end writes every index: none is kept unread).
        "DROP INDEX games_by_end",
        "DROP INDEX games_by_ruleset",
        "DROP INDEX games_by_top_score",
    ),
    # Version 3: what a player learns from their games (kismet_tui/review, docs/review.md),
    # read from each log when it is indexed: a race seat's median reaction in ms, and a dice
    # seat's review cost in hundredths of a point (NULL for other games, a seat that never
    # grabbed, a dice game indexed before the optimal table was built, or a log the engine
    # cannot play).
    2: (
        "ALTER TABLE seats ADD COLUMN reaction_ms INTEGER",
        "ALTER TABLE seats ADD COLUMN dice_cost_centi INTEGER",
    ),
}


class NewerSchema(Exception):
    """The file was written by a newer host (its words say which version)."""


def schema_version(db: sqlite3.Connection) -> int:
    """The file's version: 0 for an empty database."""
    has_meta = db.execute(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()[0]
    if not has_meta:
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None:
        raise sqlite3.DatabaseError("the records database has no schema version")
    return int(row[0])


def migrate(db: sqlite3.Connection) -> int:
    """Bring the database to SCHEMA_VERSION, one transaction per step; returns the version it
    had. Raises NewerSchema for a file from a newer host, sqlite3.DatabaseError for a damaged one."""
    found = schema_version(db)
    if found > SCHEMA_VERSION:
        raise NewerSchema(
            f"it was written by a newer kismet-host (records version {found}, "
            f"this one knows {SCHEMA_VERSION})"
        )
    for version in range(found, SCHEMA_VERSION):
        with db:
            for statement in MIGRATIONS[version]:
                db.execute(statement)
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(version + 1),),
            )
    return found
