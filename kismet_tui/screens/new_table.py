"""The new-table form: game, bots, and the game's options, all with arrow keys.

up/down chooses a line, left/right changes its value, enter creates the table; by mouse, a
click on a line chooses it, on its arrows (or value) changes it, and the buttons under the
form create the table or go back. With
`quick=True` (local play) the game starts as soon as the table exists. The card games' chip
table is a line too: a preset, or "custom", whose 11 numbers are typed right on the form
(digits and spaces, backspace erases) and checked as they are typed.
"""

from __future__ import annotations

import sys
from functools import partial

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..app_ref import kismet_app
from ..messages import RefusalToShow, send_ok
from ..rules import GAMES, IllegalAction
from ..rules.base import Plain
from ..rules.cards import DEFAULT_CHIPS, chips_option
from ..widgets.clicks import ClickText, acts, button
from ..widgets.footer import KeyFooter
from ..widgets.toosmall import TooSmall

GAME_LINES = {  # one line for each of the games (kismet_tui/rules GAMES), shown as chosen
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


# Every game has a turn limit by default; the owner may choose a longer one, or none, which
# everyone sees in the lobby before they sit down ([D31], docs/rules.md).
NO_LIMIT = "none (shown to all)"

# ruleset -> [(option name, label, [(shown, value)], default index)]
OPTION_ROWS = {
    "dice": [
        ("turn_limit_ms", "Time per turn", seconds([30000, 60000, 120000, 300000, 0], NO_LIMIT), 1),
    ],
    "race": [
        ("countdown_ms", "Countdown before a roll", seconds([1000, 2000, 3000, 5000]), 2),
        ("round_limit_ms", "Time to grab", seconds([5000, 8000, 10000, 15000, 20000]), 2),
        ("reveal_ms", "Pause after a round", seconds([1000, 2000, 3000, 5000]), 1),
    ],
    "knock": [
        ("rounds", "Rounds", [(str(n), n) for n in (1, 2, 3, 5, 10)], 0),
        ("turn_limit_ms", "Time per turn", seconds([30000, 60000, 120000, 300000, 0], NO_LIMIT), 0),
        ("knock_window_ms", "Time to knock", seconds([1000, 1500, 2000, 3000, 5000]), 1),
    ],
}


# The chip table of the card games (race, knock): one chip value per number 2..12.
CHIP_GAMES = ("race", "knock")
CHIP_PRESETS = [("standard", list(DEFAULT_CHIPS)), ("1 each", [1] * 11), ("custom", None)]
CUSTOM = len(CHIP_PRESETS) - 1
CHIP_TEXT_MAX = 40  # room for 11 two-digit numbers and their spaces


def chip_words(chips: list[int]) -> str:
    return " ".join(str(value) for value in chips)


def parse_chips(text: str) -> tuple[list[int] | None, str]:
    """The chip table typed on the form, or None and what is wrong with it in plain words."""
    values = [int(word) for word in text.replace(",", " ").split() if word.isdigit()]
    if len(values) != 11:
        return None, f"Type 11 values, one per number 2 to 12 ({len(values)} so far)."
    try:
        return chips_option({"chips": values}), ""
    except IllegalAction as exc:
        return None, exc.words


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
    /* A band as wide as the screen, so no cut-off words of the lobby show beside the form. */
    NewTableScreen > #band { width: 100%; height: auto; align: center middle; background: $background; }
    NewTableScreen #band > Vertical {
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
        self.option_index = {
            game: {row[0]: row[3] for row in rows} for game, rows in OPTION_ROWS.items()
        }
        self.chip_preset = 0
        self.chip_text = chip_words(list(DEFAULT_CHIPS))
        self.line = 0

    @property
    def ruleset(self) -> str:
        return GAMES[self.game_index]

    def rows(self) -> list[tuple[str, str]]:
        """(key, label) of each line of the form, for the game chosen now."""
        rows = [("game", "Game"), ("bots", "Bots"), ("level", "Bot level")]
        rows += [(name, label) for name, label, _, _ in OPTION_ROWS[self.ruleset]]
        if self.ruleset in CHIP_GAMES:
            rows.append(("chips", "Chips on the cards"))
        return rows

    def typing_chips(self) -> bool:
        """The custom chip table is chosen and its line is the current one: keys type."""
        return self.rows()[self.line][0] == "chips" and self.chip_preset == CUSTOM

    def chips(self) -> tuple[list[int] | None, str]:
        """The chip table chosen now, or None and why it cannot be used."""
        preset = CHIP_PRESETS[self.chip_preset][1]
        return (list(preset), "") if preset is not None else parse_chips(self.chip_text)

    def compose(self) -> ComposeResult:
        with Container(id="band"), Vertical():
            yield ClickText(id="form")
        yield TooSmall()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.draw()

    def value_of(self, key: str) -> str:
        if key == "game":
            return self.ruleset
        if key == "bots":
            return str(self.bots)
        if key == "level":
            return self.levels[self.level_index]
        if key == "chips":
            return CHIP_PRESETS[self.chip_preset][0]
        for name, _, values, _ in OPTION_ROWS[self.ruleset]:
            if name == key:
                return values[self.option_index[self.ruleset][name]][0]
        return ""

    def draw(self) -> None:
        text = Text()
        text.append("Play a game now\n\n" if self.quick else "A new table\n\n", Style(bold=True))
        for index, (key, label) in enumerate(self.rows()):
            chosen = index == self.line
            # By mouse: a line's label chooses it, the chosen one's arrows change its value
            # (the keys' own actions, widgets/clicks.py).
            go = acts(f"screen.go({index})")
            text.append("▶ " if chosen else "  ", Style(color="bright_yellow") + go)
            text.append(f"{label:<24}", go)
            value = Style(reverse=chosen, bold=chosen)
            if chosen:
                text.append("◀", value + acts("screen.change(-1)"))
                text.append(f" {self.value_of(key)} ", value + acts("screen.change(1)"))
                text.append("▶", value + acts("screen.change(1)"))
            else:
                text.append(f"  {self.value_of(key)}", value + go)
            text.append("\n")
            if key == "chips":
                self.draw_chips(text, chosen, go)
        text.append("\n" + GAME_LINES[self.ruleset] + "\n", Style(color="bright_black"))
        if self.ruleset != "dice" and self.bots == 0 and self.quick:
            text.append(
                "This game needs at least one other player: add a bot.\n", Style(color="yellow")
            )
        text.append("\n")
        button(text, "Play" if self.quick else "Create the table", "screen.create")
        text.append("  enter  ·  ", Style(color="bright_black"))
        button(text, "Back", "screen.cancel")
        text.append("  escape", Style(color="bright_black"))
        self.query_one("#form", Static).update(text)

    def draw_chips(self, text: Text, chosen: bool, go: Style) -> None:
        """The chip table under its line: the preset's values, or the custom entry (a
        click on it chooses its line, `go`, where the keys type)."""
        text.append(f"{'':<4}{'for 2 to 12':<24}", Style(color="bright_black") + go)
        preset = CHIP_PRESETS[self.chip_preset][1]
        if preset is not None:  # every preset but "custom", which is typed in
            text.append(chip_words(preset) + "\n", Style(color="bright_black") + go)
            return
        text.append(self.chip_text, Style(bold=True, underline=True) + go)
        text.append("▏" if chosen else "", Style(color="bright_yellow", blink=True))
        text.append("\n")
        _, problem = self.chips()
        if problem:
            text.append(f"    {problem}\n", Style(color="yellow"))
        elif chosen:
            text.append("    type the numbers, backspace erases\n", Style(color="bright_black"))

    def on_key(self, event: events.Key) -> None:
        """While the custom chip table is the current line, digits and spaces type into it."""
        if not self.typing_chips():
            return
        if event.key == "backspace":
            self.chip_text = self.chip_text[:-1]
        elif event.character is not None and (event.character.isdigit() or event.character in " ,"):
            if len(self.chip_text) >= CHIP_TEXT_MAX:
                self.post_message(
                    RefusalToShow("That is more than a chip table needs: 11 numbers.")
                )
            else:
                self.chip_text += event.character
        else:
            return
        event.stop()
        event.prevent_default()
        self.draw()

    def action_move(self, step: int) -> None:
        self.line = (self.line + step) % len(self.rows())
        self.draw()

    def action_go(self, line: int) -> None:
        """Choose a line (by mouse: a click on it)."""
        if 0 <= line < len(self.rows()):
            self.line = line
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
        elif key == "chips":
            self.chip_preset = (self.chip_preset + step) % len(CHIP_PRESETS)
        else:
            values = next(v for name, _, v, _ in OPTION_ROWS[self.ruleset] if name == key)
            current = self.option_index[self.ruleset][key]
            self.option_index[self.ruleset][key] = (current + step) % len(values)
        self.draw()

    def options(self) -> Plain:
        out: Plain = {}
        for name, _, values, default in OPTION_ROWS[self.ruleset]:
            index = self.option_index[self.ruleset][name]
            if index != default:
                out[name] = values[index][1]
        if self.ruleset in CHIP_GAMES:
            chips, _ = self.chips()
            if chips is not None and chips != list(DEFAULT_CHIPS):
                out["chips"] = chips
        return out

    async def action_create(self) -> None:
        if self.ruleset in CHIP_GAMES:
            chips, problem = self.chips()
            if chips is None:
                self.line = [key for key, _ in self.rows()].index("chips")
                self.draw()
                typed = [
                    word for word in self.chip_text.replace(",", " ").split() if word.isdigit()
                ]
                what = "is not complete yet" if len(typed) != 11 else "cannot be used"
                self.post_message(RefusalToShow(f"The custom chip table {what}. {problem}"))
                return
        level = self.levels[self.level_index]
        client = kismet_app(self).client
        if not await send_ok(
            self, partial(client.create_table, self.ruleset, self.options(), [level] * self.bots)
        ):
            return
        if self.quick:  # local play: bots are ready, the game starts at once
            await send_ok(self, client.start)
        self.dismiss()

    def action_cancel(self) -> None:
        self.dismiss()
