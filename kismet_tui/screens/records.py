"""The records, from the lobby (key h): the leaderboard per game, the recent games, a
player's own page, and the solo dice high scores.

Keys: 1 leaderboard, 2 recent games, 3 my page, 4 high scores; g the next game (dice, race,
knock); → and ← (or page down and up) the next and the previous page; enter opens the chosen
row (a player's page from the leaderboard; the replay of a game, when its log is on this
computer); v the review of a game kept on this computer (screens/review.py); escape
back. By mouse: the buttons over the table (the views, the game, back to
the lobby), a click on a row chooses it and a second click opens it, and the page buttons
under it turn the pages. Every page is one `records` request (docs/protocol.md, "Records").
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from protocol.host_messages import RecordsMessage
from protocol.limits import MIN_RATED_GAMES

from ..app_ref import OnKismetApp
from ..messages import send
from ..rules import GAMES
from ..rules.base import Plain
from ..widgets.clicks import ClickText, button
from ..widgets.footer import KeyFooter
from ..widgets.names import fit
from ..widgets.sparkline import sparkline
from ..widgets.status import StatusBar
from ..widgets.toosmall import TooSmall

TITLES = {
    "leaderboard": "Leaderboard",
    "recent": "Recent games",
    "player": "Player",
    "best": "High scores",
}


def when(ms: object) -> str:
    """A game's end as a date a person reads (UTC, as the log names are)."""
    if not isinstance(ms, int):
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000))


def change_words(change: object) -> str:
    return f"{change:+d}" if isinstance(change, int) else ""


def columns_and_rows(
    view: str, answer: Mapping[str, Any]
) -> tuple[list[tuple[str, int]], list[list[str]]]:
    """The table for one answer: (column label, width) and the rows as text."""
    rows = answer.get("rows") or []
    if view == "leaderboard":
        return (
            [("#", 4), ("player", 22), ("rating", 7), ("games", 6), ("won", 5), ("best", 5)],
            [
                [
                    str(answer.get("page", 0) * 10 + n + 1),
                    fit(str(r.get("name")), 22),
                    str(r.get("rating")),
                    str(r.get("games")),
                    str(r.get("wins")),
                    str(r.get("best")),
                ]
                for n, r in enumerate(rows)
            ],
        )
    if view == "best":
        return (
            [("#", 3), ("score", 6), ("player", 22), ("when", 17)],
            [
                [str(n + 1), str(r.get("score")), fit(str(r.get("name")), 22), when(r.get("ended"))]
                for n, r in enumerate(rows)
            ],
        )
    if view == "player":
        return (
            [("when", 17), ("game", 6), ("score", 6), ("", 4), ("rating", 7), ("with", 30)],
            [
                [
                    when(r.get("ended")),
                    str(r.get("ruleset")),
                    str(r.get("score")) if r.get("finished", True) else "-",
                    mark(r, r.get("player_left")),
                    change_words(r.get("change")),
                    fit(
                        ", ".join(
                            str(s.get("name")) + (" (left)" if s.get("left") else "")
                            for s in r.get("seats") or []
                            if s.get("player") != answer.get("player")
                        )
                        or "alone",
                        30,
                    ),
                ]
                for r in (with_my_seat(row, answer.get("player")) for row in rows)
            ],
        )
    return (
        [("when", 17), ("game", 6), ("players and scores", 50)],
        [
            [
                when(r.get("ended")),
                str(r.get("ruleset")),
                fit(
                    ", ".join(
                        f"{s.get('name')} {s.get('score')}"
                        + ("*" if s.get("won") else "")
                        + (" left the game" if s.get("left") else "")
                        for s in r.get("seats") or []
                    ),
                    50,
                ),
            ]
            for r in rows
        ],
    )


def with_my_seat(row: Mapping[str, Any], player: object) -> Plain:
    """A player page's row, with whether that player left the game (`player_left`)."""
    left = any(s.get("left") for s in row.get("seats") or [] if s.get("player") == player)
    return {**row, "player_left": left}


def mark(row: Plain, left: object) -> str:
    """The short word beside a player's score: won, a new best, or left (the game counted
    as lost: protocol/leavers.py)."""
    if left:
        return "left"
    return "won" if row.get("won") else ("best" if row.get("best") else "")


def cost_words(review: object) -> str:
    """A dice standing's second line: the points a game's decisions gave up to the perfect
    player on average, and their trend over the last games (docs/review.md)."""
    if not isinstance(review, dict):
        return ""
    recent = [
        c
        for c in review.get("recent_centi") or []
        if isinstance(c, int) and not isinstance(c, bool)
    ]
    average = review.get("average_centi")
    if not recent or not isinstance(average, int) or isinstance(average, bool):
        return ""
    words = f"\n         gives up {average / 100:.1f} points a game"
    if len(recent) > 1:
        words += f"  {sparkline(recent)} (last {len(recent)}, lower is better)"
    return words


def reaction_words(reaction: object) -> str:
    """A race standing's second line: the median reaction of the last game, its trend over
    the last games, and the fastest median of the month (docs/review.md, "Race")."""
    if not isinstance(reaction, dict):
        return ""
    recent = [
        ms
        for ms in reaction.get("recent_ms") or []
        if isinstance(ms, int) and not isinstance(ms, bool)
    ]
    if not recent:
        return ""
    words = f"\n         reaction {recent[-1] / 1000:.2f} s"
    if len(recent) > 1:
        words += f"  {sparkline(recent)} (last {len(recent)})"
    fastest = reaction.get("fastest_month_ms")
    if isinstance(fastest, int) and not isinstance(fastest, bool):
        words += f"  month's best {fastest / 1000:.2f} s"
    return words


def heading(view: str, ruleset: str, answer: Mapping[str, Any] | None) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    if view == "player" and answer is not None:
        if not answer.get("found"):
            text.append("No games of yours in the records yet: play one!", style="bold")
            return text
        text.append(f"{answer.get('name')}", style="bold")
        for standing in answer.get("standings") or []:
            text.append(
                f"\n  {standing['ruleset']:<6} rating {standing['rating']}  "
                f"won {standing['wins']} of {standing['games']}  best {standing['best']}  "
                f"average {standing['average']}",
                style="bright_black",
            )
            rated = standing.get("rated")
            if isinstance(rated, int) and rated < MIN_RATED_GAMES:
                # A line of its own: beside the figures it would not fit 80 columns.
                text.append(
                    f"\n         on the leaderboard after {MIN_RATED_GAMES} rated games ({rated} so far)",
                    style="bright_black",
                )
            text.append(reaction_words(standing.get("reaction")), style="bright_black")
            text.append(cost_words(standing.get("review")), style="bright_black")
        return text
    text.append(TITLES[view], style="bold")
    if view in ("leaderboard", "best"):
        text.append(f"  {ruleset if view == 'leaderboard' else 'solo dice'}", style="bright_black")
    if answer is not None:
        text.append(f"  page {answer.get('page', 0) + 1}", style="bright_black")
    return text


TABS = [
    ("leaderboard", "Leaders"),
    ("recent", "Recent"),
    ("player", "Mine"),
    ("best", "High scores"),
]


def tabs(view: str, ruleset: str) -> Text:
    """The line of buttons over the records (the mouse's 1-4, g and escape): the view shown
    is lit, the game's button names the game whose leaderboard is shown."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for name, label in TABS:
        button(text, label, f"screen.view('{name}')", "bold reverse" if name == view else "bold")
        text.append(" ")
    text.append(" ")
    button(text, f"game: {ruleset}", "screen.next_ruleset")
    text.append("  ")
    button(text, "Lobby", "screen.close")
    return text


def page_words(words: str, more: bool, page: int) -> Text:
    """The line under the table: what enter does, and the page buttons there are."""
    text = Text(words)
    if more:
        text.append("   ")
        button(text, "→ next page", "screen.page(1)", "")
    if page:
        text.append("   ")
        button(text, "← previous page", "screen.page(-1)", "")
    return text


class RecordsScreen(OnKismetApp, Screen[None]):
    BINDINGS = [
        Binding("1", "view('leaderboard')", "Leaders"),
        Binding("2", "view('recent')", "Recent"),
        Binding("3", "view('player')", "Mine"),
        Binding("4", "view('best')", "High scores"),
        Binding("g", "next_ruleset", "Game"),
        Binding("right,pagedown", "page(1)", "Next", show=False),
        Binding("left,pageup", "page(-1)", "Back", show=False),
        Binding("enter", "open_row", "Open"),
        Binding("v", "review_row", "Review", show=False),  # (said under the table)
        Binding("escape", "close", "Lobby"),
    ]
    DEFAULT_CSS = """
    RecordsScreen #records-tabs { height: 1; padding: 0 1; }
    RecordsScreen #records-heading { height: auto; padding: 0 1; }
    RecordsScreen DataTable { height: 1fr; }
    RecordsScreen #records-words { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(
        self, view: str = "leaderboard", ruleset: str = "dice", player: str | None = None
    ) -> None:
        super().__init__()
        self.view, self.ruleset, self.player, self.page = view, ruleset, player, 0
        self.answer: RecordsMessage | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar("records")
        yield ClickText(tabs(self.view, self.ruleset), id="records-tabs")
        yield Static(id="records-heading")
        yield DataTable(id="records-table", cursor_type="row", zebra_stripes=False)
        yield ClickText("", id="records-words")
        yield TooSmall()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.load()

    def load(self) -> None:
        self.run_worker(self._load(), group="records", exclusive=True)

    async def _load(self) -> None:
        ruleset = (
            None if self.view == "recent" else ("dice" if self.view == "best" else self.ruleset)
        )
        answer = await send(
            self,
            lambda: self.client.records(
                self.view, ruleset, self.player if self.view == "player" else None, self.page
            ),
        )
        # Still on the app: not `is_mounted`, which turns true only once on_mount (which asks
        # this) has returned, and an answer that needs no waiting (a host in this process)
        # may come before that. Python 3.12's asyncio runs it first, so is_mounted dropped it.
        if answer is None or not self.is_attached:
            return
        self.answer = answer
        self.show()

    def show(self) -> None:
        answer: Mapping[str, Any] = self.answer or {}
        self.query_one("#records-heading", Static).update(
            heading(self.view, self.ruleset, self.answer)
        )
        table = self.query_one(DataTable)
        table.clear(columns=True)
        columns, rows = columns_and_rows(self.view, answer)
        for label, width in columns:
            table.add_column(label, width=width)
        for row in rows:
            table.add_row(*row)
        hints = {
            "leaderboard": "enter: their page",
            "recent": "enter: replay · v: review",
            "player": "enter: replay · v: review",
            "best": "enter: replay · v: review",
        }
        words = "Nothing here yet." if not rows else hints[self.view]
        if not rows and self.view == "leaderboard":
            words = (
                f"Nobody here yet: a player is listed once {MIN_RATED_GAMES} of their games "
                "moved their rating."
            )
        self.query_one("#records-tabs", Static).update(tabs(self.view, self.ruleset))
        self.query_one("#records-words", Static).update(
            page_words(words, bool(answer.get("more")), self.page)
        )

    def action_view(self, view: str) -> None:
        self.view, self.page = view, 0
        if view != "player" or self.player is None:
            self.player = None  # "3": my own page
        self.load()

    def action_next_ruleset(self) -> None:
        self.ruleset = GAMES[(GAMES.index(self.ruleset) + 1) % len(GAMES)]
        self.page = 0
        self.load()

    def action_page(self, step: int) -> None:
        if step > 0 and not (self.answer is not None and self.answer["more"]):
            return
        if step < 0 and self.page == 0:
            return
        self.page += step
        self.load()

    def chosen(self) -> Mapping[str, Any] | None:
        rows = self.answer["rows"] if self.answer is not None else []
        index = self.query_one(DataTable).cursor_row
        return rows[index] if 0 <= index < len(rows) else None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_row()  # enter on the table (it takes the key before the screen)

    def action_open_row(self) -> None:
        row = self.chosen()
        if row is None:
            return
        if self.view == "leaderboard":
            self.view, self.player, self.page = "player", row.get("player"), 0
            self.load()
            return
        self.replay(row.get("log"))

    def local_log(self, log_name: object, how: str) -> Path | None:
        """The path of a game's log on this computer (the solo host's folder), or None once
        the player is told why not; `how` is the command that does it at the host."""
        folder = self.kismet.replay_folder
        if not isinstance(log_name, str):
            self.app.notify(
                "That game's replay was removed (the host keeps only the newest).", markup=False
            )
            return None
        if folder is None or not (folder / log_name).exists():
            self.app.notify(
                f"That replay is kept on the host: {how} {log_name} does it there.", markup=False
            )
            return None
        return folder / log_name

    def replay(self, log_name: object) -> None:
        """Play back a game whose log is on this computer; a remote host's games are replayed
        where they are kept."""
        path = self.local_log(log_name, "kismet-replay")
        if path is None:
            return
        import subprocess
        import sys

        with self.app.suspend():
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import sys; from kismet_tui.cli import replay_main; "
                    "sys.exit(replay_main(sys.argv[1:]))",
                    str(path),
                ],
                check=False,
            )

    def action_review_row(self) -> None:
        """The review of the chosen game (screens/review.py), when its log is here."""
        from .review import REVIEWED, review_screen

        row = self.chosen()
        if row is None or self.view == "leaderboard":
            return
        if self.view != "best" and row.get("ruleset") not in REVIEWED:
            games = ", ".join(REVIEWED[:-1]) + " and " + REVIEWED[-1]
            self.app.notify(f"Only {games} games have a review.", markup=False)
            return
        path = self.local_log(row.get("log"), "kismet-replay --review")
        if path is None:
            return
        from ..saved_game import UnreadableGame, playable

        try:
            header, events = playable(path)
        except UnreadableGame as exc:
            self.app.notify(exc.words, markup=False)
            return
        seats = [s.get("player") for s in row.get("seats") or []]
        mine = self.answer.get("player") if self.answer and self.view == "player" else None
        seat = seats.index(mine) if mine is not None and mine in seats else 0
        self.app.push_screen(review_screen(header, events, seat))

    def action_close(self) -> None:
        self.dismiss()
