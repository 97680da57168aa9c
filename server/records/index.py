"""One finished game's log into the records: its game row, its seats, its players, and the
ratings of the players it moved.

The log is the record; this reads only what the index needs from it (the header, the last
event's stamp, the end record) and writes one transaction. The host's live index and
`--reindex` both come through `index_log`, so a rebuild gives what the host wrote as games
ended, as long as it meets the logs in the same order (by their end, then their name).

Ratings (openskill's Plackett-Luce model, made for games of many players with scores) move
only among distinct players (docs/protocol.md, "Records"). The rated seats of a game are its
proven ones, but for a bot at the random level (it plays by chance: beating it proves
nothing) and for a player who holds more than one seat (playing oneself proves nothing; the
host gives one proof one seat, so only an old or forged log has that). A game is rated when
its rated seats hold two or more players; they are ranked by their final scores (higher is
better, equal scores a tie), and a seat whose player left for good (protocol/leavers.py) is
ranked below every seat that stayed, whatever its score. A game the host closed unfinished
(everyone human left it) is rated too when somebody left it and somebody rated stayed: those
who stayed share the first place, those who left the last; it moves ratings only (the games,
wins, best and average scores count finished games). Solo games move no rating; they give
high scores and personal bests, and are nobody's win. Bots at other levels are one player
per level ("Medium bot" on the pages: server/records/queries.py), each of their seats an
opponent of its own; every seat of a level adds to that level's games, wins, best and total.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kismet_tui.review.race import race_reactions
from protocol.gamelog import LogError, iter_records
from protocol.host_messages import Outcome
from protocol.leavers import Leavers
from protocol.text import clean_name

from .proof import bot_id

# Beating a bot that plays by chance proves nothing: its seats are never rated.
UNRATED_BOTS = frozenset({bot_id("random")})


# The model's parameters, named here (they are openskill's defaults) so a newer openskill
# cannot change the ratings under the records, and docs/protocol.md ("Records") can state
# them: mu and sigma a newcomer's start, beta the spread of one performance, kappa the floor
# of a variance, tau the uncertainty added to sigma before each game.
MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25.0 / 3, 25.0 / 6, 0.0001, 25.0 / 300


@functools.cache
def model() -> Any:
    """openskill's Plackett-Luce model, made at the first rating: its import (about 14 ms)
    stays off the solo app's way to its first screen."""
    from openskill.models import PlackettLuce

    return PlackettLuce(
        mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU, limit_sigma=False, balance=False
    )


# The shown rating: openskill's ordinal (mu - 3 sigma, what the player is surely at least),
# scaled so a newcomer shows 1000 and one ordinal point is 40 (a win among four: about +80).
RATING_SCALE, RATING_START = 40, 1000


def shown_rating(mu: float, sigma: float) -> int:
    return round(
        model().rating(mu=mu, sigma=sigma).ordinal(alpha=RATING_SCALE, target=RATING_START)
    )


@dataclass
class EndedGame:
    """What the index needs from one log; None from `read_ended` for an unfinished game."""

    log_file: str
    ruleset: str
    table_id: int
    started_ms: int
    ended_ms: int
    names: list[str]
    players: list[str | None]
    scores: list[int]
    winners: list[int]
    finished: bool = True  # False: closed unfinished (everyone left; no end record)
    left: list[int] = field(default_factory=list)  # seats that left for good (protocol/leavers.py)
    # Each seat's median race reaction in ms (kismet_tui/review/race.py); None where it has none.
    reactions: list[int | None] = field(default_factory=list)
    # Each seat's dice review cost in hundredths of a point (kismet_tui/review/dice.py).
    dice_costs: list[int | None] = field(default_factory=list)


def read_ended(path: Path, unfinished_too: bool = False) -> EndedGame | None:
    """The ended game in `path`; for a log with no end record None, or (`unfinished_too`: a
    log no table will go on with) a game with `finished` False. LogError if it is no log."""
    header = end = None
    table_id, last_t = 0, None
    leavers: Leavers | None = None
    events: list[dict[str, Any]] = []
    try:
        with open(path, "rb") as stream:
            for record in iter_records(stream):
                kind = record.get("kind")
                if kind == "header":
                    header, table_id = record.get("header"), record.get("table", 0)
                    leavers = Leavers(header) if isinstance(header, dict) else None
                elif kind == "event":
                    last_t = record.get("t")
                    if isinstance(header, dict) and header.get("ruleset") in ("race", "dice"):
                        events.append(
                            record
                        )  # (read for the review: seat_reactions, seat_dice_costs)
                    if leavers is not None:
                        leavers.see(record)
                elif kind == "end":
                    end = record
    except (OSError, ValueError) as exc:
        raise LogError(f"{path.name} cannot be read: {exc}") from None
    had_end = end is not None
    if not had_end and not unfinished_too:
        return None
    if end is None:
        end = {"result": {"scores": [0] * len((header or {}).get("seats") or []), "winners": []}}
    if not isinstance(header, dict) or not isinstance(end.get("result"), dict):
        raise LogError(f"{path.name} has no header or no result")
    names = [clean_name(str(name)) for name in header.get("seats") or []]
    players = list(header.get("players") or [None] * len(names))
    result = end["result"]
    scores, winners = list(result.get("scores") or []), list(result.get("winners") or [])
    if len(players) != len(names) or len(scores) != len(names):
        raise LogError(f"{path.name}: seats, players and scores do not match")
    started = int(header.get("t0", 0))
    return EndedGame(
        path.name,
        str(header.get("ruleset")),
        int(table_id or 0),
        started,
        int(last_t if last_t is not None else started),
        names,
        [str(p) if p else None for p in players],
        [int(s) for s in scores],
        [int(w) for w in winners],
        finished=had_end,
        left=leavers.left(had_end) if leavers is not None else [],
        reactions=seat_reactions(header, events, len(names)),
        dice_costs=seat_dice_costs(header, events, len(names)) if had_end else [],
    )


def seat_dice_costs(
    header: dict[str, Any], events: list[dict[str, Any]], seats: int
) -> list[int | None]:
    """Each seat's dice review cost, in hundredths of a point (kismet_tui/review/dice.py):
    None for other games, and for every seat while the optimal table is not built (a review
    never guesses; `--reindex` once it is built fills them), or for a log the engine cannot
    play."""
    if header.get("ruleset") != "dice":
        return [None] * seats
    from kismet_tui.review import optimal  # (light: it loads numpy only for a table built)

    V = optimal.loaded()
    if V is None:
        return [None] * seats
    from kismet_tui.review.dice import review_dice_game  # (numpy and the solver)

    try:
        review = review_dice_game(header, events, V)
    except Exception:  # (a log from an old or odd host: the game is still a record)
        return [None] * seats
    costs: list[int | None] = [round(seat.total_cost * 100) for seat in review.seats]
    return costs if len(costs) == seats else [None] * seats


def seat_reactions(
    header: dict[str, Any], events: list[dict[str, Any]], seats: int
) -> list[int | None]:
    """Each seat's median reaction in a race game (None for other games, a seat that never
    grabbed, and a log the engine cannot play through: the figures are a record's extra, never
    a reason to refuse it)."""
    if header.get("ruleset") != "race":
        return [None] * seats
    try:
        found = race_reactions(header, events)
    except Exception:  # (a log from an old or odd host: the game is still a record)
        return [None] * seats
    return [seat.median_ms for seat in found] if len(found) == seats else [None] * seats


@dataclass
class SeatOutcome:
    """One seat's line for the end box: its rating and the change, and a new personal best."""

    seat: int
    rating_before: int | None
    rating_after: int | None
    personal_best: bool

    def shown(self) -> Outcome:
        """What a client shows: {"rating", "change", "best"} (rating and change None when
        the game moved no rating)."""
        change = None
        if self.rating_before is not None and self.rating_after is not None:
            change = self.rating_after - self.rating_before
        return {"rating": self.rating_after, "change": change, "best": self.personal_best}


def index_log(
    db: sqlite3.Connection, path: Path, unfinished_too: bool = False
) -> list[SeatOutcome] | None:
    """Index the finished game in `path` (once: a log already indexed gives its outcomes
    again). None for an unfinished game, unless `unfinished_too` (a game closed unfinished:
    indexed as such, for pruning). One transaction; raises sqlite3 errors as they come."""
    game = read_ended(path, unfinished_too)
    return None if game is None else index_game(db, game)


def index_game(db: sqlite3.Connection, game: EndedGame) -> list[SeatOutcome]:
    """index_log for a game already read."""
    known = db.execute(
        "SELECT id FROM games WHERE log_file = ? AND started_ms = ?",
        (game.log_file, game.started_ms),
    ).fetchone()
    if known is not None:
        return outcomes_of(db, known[0])
    with db:
        cursor = db.execute(
            "INSERT INTO games (log_file, ruleset, table_id, started_ms, ended_ms, seat_count, top_score, "
            "finished, solo_player) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game.log_file,
                game.ruleset,
                game.table_id,
                game.started_ms,
                game.ended_ms,
                len(game.names),
                max(game.scores, default=0),
                int(game.finished),
                game.players[0] if game.finished and len(game.names) == 1 else None,
            ),
        )
        rated = rated_seats(game)
        if not game.finished and not rated:
            return []  # no result and nobody rated: nobody's record moves
        game_id = cursor.lastrowid
        outcomes = _rate_and_record(db, game, rated)
        for seat, name in enumerate(game.names):
            player, outcome = game.players[seat], outcomes[seat]
            db.execute(
                "INSERT INTO seats (game_id, seat, player_id, name, score, won, rating_before, "
                "rating_after, personal_best, left_game, reaction_ms, dice_cost_centi) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    seat,
                    player,
                    name,
                    game.scores[seat],
                    int(len(game.names) > 1 and seat in game.winners),
                    outcome.rating_before,
                    outcome.rating_after,
                    int(outcome.personal_best),
                    int(seat in game.left),
                    game.reactions[seat] if game.reactions else None,
                    game.dice_costs[seat] if game.dice_costs else None,
                ),
            )
            if player is not None:
                db.execute(
                    "INSERT INTO players (id, name, is_bot, last_ms) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, last_ms = excluded.last_ms "
                    "WHERE excluded.last_ms >= players.last_ms",
                    (player, name, int(player.startswith("bot:")), game.ended_ms),
                )
    return [outcomes[seat] for seat in range(len(game.names))]


def rated_seats(game: EndedGame) -> list[int]:
    """The seats whose ratings `game` moves (see the module's words): none, or two or more
    holding at least two players."""
    held: dict[str, int] = {}
    for player in game.players:
        if player is not None:
            held[player] = held.get(player, 0) + 1
    rated = [
        seat
        for seat, player in enumerate(game.players)
        if player is not None
        and player not in UNRATED_BOTS
        and (held[player] == 1 or player.startswith("bot:"))
    ]
    if len({game.players[seat] for seat in rated}) < 2:
        return []
    if not game.finished:  # closed unfinished: rated when somebody left and somebody stayed
        stayed = [seat for seat in rated if seat not in game.left]
        if not stayed or len(stayed) == len(rated):
            return []
    return rated


def rating_scores(game: EndedGame, rated: list[int]) -> list[int]:
    """What the rated seats are ranked by, higher first: their scores, a seat that left below
    all (a game closed unfinished has no scores: those who stayed tie above those who left)."""
    if not game.finished:
        return [0 if seat in game.left else 1 for seat in rated]
    below = min(game.scores[seat] for seat in rated) - 1
    return [below if seat in game.left else game.scores[seat] for seat in rated]


def _rate_and_record(
    db: sqlite3.Connection, game: EndedGame, moved: list[int]
) -> dict[int, SeatOutcome]:
    """Update the standing in the game's ruleset of each proven seat's player (not of one
    holding several seats: nothing of their game counts) and rate the seats in `moved`; the outcome
    of every seat."""
    outcomes = {seat: SeatOutcome(seat, None, None, False) for seat in range(len(game.names))}
    held: dict[str, int] = {}
    for player in game.players:
        if player is not None:
            held[player] = held.get(player, 0) + 1
    proven = [
        seat
        for seat, player in enumerate(game.players)
        if player is not None and (held[player] == 1 or player.startswith("bot:"))
    ]
    if not game.finished:
        proven = moved  # a game closed unfinished moves ratings only
    before: dict[int, tuple[float, float, int, int, int, int, int]] = {}
    for seat in proven:
        row = db.execute(
            "SELECT mu, sigma, games, wins, best, total, rated FROM standings "
            "WHERE player_id = ? AND ruleset = ?",
            (game.players[seat], game.ruleset),
        ).fetchone()
        fresh = model().rating()  # a newcomer: openskill's own start (mu 25, sigma 25/3)
        before[seat] = tuple(row) if row is not None else (fresh.mu, fresh.sigma, 0, 0, 0, 0, 0)  # type: ignore[assignment]
    rated: dict[int, tuple[float, float]] = {}
    if moved:
        teams = [[model().rating(mu=before[seat][0], sigma=before[seat][1])] for seat in moved]
        new = model().rate(teams, scores=rating_scores(game, moved))
        rated = {seat: (team[0].mu, team[0].sigma) for seat, team in zip(moved, new)}
    counted = int(game.finished)  # games, wins, best and total count finished games only
    # A solo game is nobody's win: there was nobody to beat.
    can_win = len(game.names) > 1
    # A bot level holding several seats is one player: each seat adds to what the ones before
    # it in this game made of its standing (read once, above), not to the same old row.
    current: dict[str, tuple[float, float, int, int, int, int, int]] = {}
    for seat in proven:
        player = game.players[seat]
        assert player is not None  # (proven seats have a player)
        mu, sigma = before[seat][:2]
        _, _, games, wins, best, total, rated_games = current.get(player, before[seat])
        new_mu, new_sigma = rated.get(seat, current.get(player, before[seat])[:2])
        score = game.scores[seat] if counted else 0
        outcome = outcomes[seat]
        outcome.personal_best = bool(counted) and games > 0 and score > best
        if seat in rated:
            outcome.rating_before, outcome.rating_after = (
                shown_rating(mu, sigma),
                shown_rating(new_mu, new_sigma),
            )
        current[player] = (
            new_mu,
            new_sigma,
            games + counted,
            wins + int(counted and can_win and seat in game.winners),
            (max(best, score) if games else score) if counted else best,
            total + score,
            rated_games + int(seat in rated),
        )
        db.execute(
            "INSERT INTO standings (player_id, ruleset, mu, sigma, rating, games, wins, best, total, rated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, ruleset) DO UPDATE SET "
            "mu = excluded.mu, sigma = excluded.sigma, rating = excluded.rating, games = excluded.games, "
            "wins = excluded.wins, best = excluded.best, total = excluded.total, rated = excluded.rated",
            (
                player,
                game.ruleset,
                *current[player][:2],
                shown_rating(*current[player][:2]),
                *current[player][2:],
            ),
        )
    return outcomes


def outcomes_of(db: sqlite3.Connection, game_id: int) -> list[SeatOutcome]:
    rows = db.execute(
        "SELECT seat, rating_before, rating_after, personal_best FROM seats "
        "WHERE game_id = ? ORDER BY seat",
        (game_id,),
    ).fetchall()
    return [SeatOutcome(seat, before, after, bool(best)) for seat, before, after, best in rows]


def ended_logs_in_order(
    folder: Path, skip: set[str], running: set[str], host_since: float | None = None
) -> tuple[list[EndedGame], list[str]]:
    """Every log in `folder` not named in `skip` whose game is over (finished, or closed
    unfinished: a log without an end that no table file names as `running`), by end then
    name (the order the host met them), and the words for each log that could not be read.
    With a host running since `host_since` (time.time()), only the logs last written before
    then: a newer one is a game of that host's, which it hands over itself when it ends."""
    found: list[EndedGame] = []
    unreadable: list[str] = []
    with os.scandir(folder) as entries:
        names = sorted(
            e.name
            for e in entries
            if e.name.endswith(".kismet")
            and e.name not in skip
            and (host_since is None or e.stat().st_mtime < host_since)
        )
    for name in names:
        try:
            game = read_ended(folder / name, unfinished_too=name not in running)
        except LogError as exc:
            unreadable.append(str(exc))
            continue
        if game is not None:
            found.append(game)
    found.sort(key=lambda game: (game.ended_ms, game.log_file))
    return found, unreadable
