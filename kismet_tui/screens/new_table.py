"""The new-table form: game, bots, and the game's options, all with arrow keys.

up/down chooses a line, left/right changes its value, enter creates the table. With
`quick=True` (local play) the game starts as soon as the table exists.
"""

from __future__ import annotations

import sys

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

GAMES = ("dice", "race", "knock")
GAME_LINES = {
    "dice": "five coloured dice, fill your scorecard (1-8 players)",
    "race": "grab the card the dice show, fastest wins (2-8)",
    "knock": "lay your cards, knock on a missed match (2-8)",
}


def seconds(values_ms: list[int], none_word: str | None = None) -> list[tuple[str, int]]:
    out = []
    for ms in values_ms:
        if ms == 0 and none_word:
            out.append((none_word, 0))
        else:
            out.append((f"{ms / 1000:g} s", ms))
    return out


# ruleset -> [(option name, label, [(shown, value)], default index)]
OPTION_ROWS = {
    "dice": [
        ("turn_limit_ms", "Time per turn", seconds([0, 30000, 60000, 120000], "no limit"), 0),
    ],
    "race": [
        ("countdown_ms", "Countdown before a roll", seconds([1000, 2000, 3000, 5000]), 2),
        ("round_limit_ms", "Time to grab", seconds([5000, 8000, 10000, 15000, 20000]), 2),
        ("reveal_ms", "Pause after a round", seconds([1000, 2000, 3000, 5000]), 1),
    ],
    "knock": [
        ("rounds", "Rounds", [(str(n), n) for n in (1, 2, 3, 5, 10)], 0),
        ("knock_window_ms", "Time to knock", seconds([1000, 1500, 2000, 3000, 5000]), 1),
    ],
}


FALLBACK_LEVELS = ["easy", "medium", "hard", "greedy", "random"]


def bot_levels() -> list[str]:
    """The bot levels this install knows. The bots package loads the solver's tables, which
    takes seconds, so it is only read here once the app's warm-up thread has imported it."""
    bots = sys.modules.get("kismet_tui.bots")
    levels = list(getattr(bots, "POLICIES", None) or FALLBACK_LEVELS)
    order = ["easy", "medium", "hard", "greedy", "random"]
    return sorted(levels, key=lambda name: (order.index(name) if name in order else 99, name))


class NewTableScreen(ModalScreen):
    DEFAULT_CSS = """
    NewTableScreen { align: center middle; }
    NewTableScreen > Vertical {
        width: 64; height: auto; max-height: 22;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "Line", key_display="↑↓"),
        Binding("down,j", "move(1)", "Line", show=False),
        Binding("left,h", "change(-1)", "Change", key_display="←→"),
        Binding("right,l", "change(1)", "Change", show=False),
        Binding("enter", "create", "Create"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, quick: bool = False) -> None:
        super().__init__()
        self.quick = quick
        self.game_index = 0
        self.levels = bot_levels()
        default_level = "medium" if "medium" in self.levels else self.levels[0]
        self.level_index = self.levels.index(default_level)
        self.bots = 1 if quick else 0
        self.option_index = {game: {row[0]: row[3] for row in rows} for game, rows in OPTION_ROWS.items()}
        self.line = 0

    @property
    def ruleset(self) -> str:
        return GAMES[self.game_index]

    def rows(self) -> list[tuple[str, str]]:
        """(key, label) of each line of the form, for the game chosen now."""
        rows = [("game", "Game"), ("bots", "Bots"), ("level", "Bot level")]
        rows += [(name, label) for name, label, _, _ in OPTION_ROWS[self.ruleset]]
        return rows

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="form")
        yield Footer()

    def on_mount(self) -> None:
        self.draw()

    def value_of(self, key: str) -> str:
        if key == "game":
            return self.ruleset
        if key == "bots":
            return str(self.bots)
        if key == "level":
            return self.levels[self.level_index]
        for name, _, values, _ in OPTION_ROWS[self.ruleset]:
            if name == key:
                return values[self.option_index[self.ruleset][name]][0]
        return ""

    def draw(self) -> None:
        text = Text()
        text.append("Play a game now\n\n" if self.quick else "A new table\n\n", Style(bold=True))
        for index, (key, label) in enumerate(self.rows()):
            chosen = index == self.line
            text.append("▶ " if chosen else "  ", Style(color="bright_yellow"))
            text.append(f"{label:<24}")
            text.append(f"◀ {self.value_of(key)} ▶" if chosen else f"  {self.value_of(key)}",
                        Style(reverse=chosen, bold=chosen))
            text.append("\n")
        text.append("\n" + GAME_LINES[self.ruleset] + "\n", Style(color="bright_black"))
        if self.ruleset != "dice" and self.bots == 0 and self.quick:
            text.append("This game needs at least one other player: add a bot.\n", Style(color="yellow"))
        text.append("\nenter: " + ("play" if self.quick else "create the table") + "  ·  escape: back",
                    Style(color="bright_black"))
        self.query_one("#form", Static).update(text)

    def action_move(self, step: int) -> None:
        self.line = (self.line + step) % len(self.rows())
        self.draw()

    def action_change(self, step: int) -> None:
        key = self.rows()[self.line][0]
        if key == "game":
            self.game_index = (self.game_index + step) % len(GAMES)
            self.line = min(self.line, len(self.rows()) - 1)
        elif key == "bots":
            self.bots = max(0, min(7, self.bots + step))
        elif key == "level":
            self.level_index = (self.level_index + step) % len(self.levels)
        else:
            values = next(v for name, _, v, _ in OPTION_ROWS[self.ruleset] if name == key)
            current = self.option_index[self.ruleset][key]
            self.option_index[self.ruleset][key] = (current + step) % len(values)
        self.draw()

    def options(self) -> dict:
        out = {}
        for name, _, values, default in OPTION_ROWS[self.ruleset]:
            index = self.option_index[self.ruleset][name]
            if index != default:
                out[name] = values[index][1]
        return out

    async def action_create(self) -> None:
        level = self.levels[self.level_index]
        ok = await self.app.create_table(self.ruleset, self.options(), [level] * self.bots,
                                         start=self.quick)
        if ok:
            self.dismiss()

    def action_cancel(self) -> None:
        self.dismiss()
