"""The word shown instead of a screen when the terminal is smaller than the game needs.

Every screen yields one TooSmall. On every resize (KismetApp.check_size) and when its screen
opens, it gives its screen the class `-too-small` while the terminal is below 80x24, and
kismet.tcss then hides everything else on that screen and shows this. Nothing is unmounted, so the game goes on underneath and comes back
as it stands when the terminal is large enough again. While it shows, no key but quitting
reaches the screen (KismetApp.on_event): nothing may act unseen.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

MIN_WIDTH, MIN_HEIGHT = 80, 24


def too_small_words(width: int, height: int, web: bool = False) -> Text:
    """What to do, in the words of where the app is drawn: a terminal, or a browser page
    (`kismet-host --web`), which has no ctrl+q and whose text can be made smaller."""
    text = Text(justify="center")
    if web:
        text.append("This window is too small for Kismet.\n\n", style="bold")
        text.append(f"It needs {MIN_WIDTH}x{MIN_HEIGHT} characters; it shows {width}x{height}.\n")
        text.append(
            "Make the browser window larger, or its text smaller (ctrl and -): the game "
            "goes on meanwhile and comes back as it is."
        )
        return text
    text.append("This terminal is too small for Kismet.\n\n", style="bold")
    text.append(f"It needs {MIN_WIDTH}x{MIN_HEIGHT}; this one is {width}x{height}.\n")
    text.append("Make the window larger: the game goes on meanwhile and comes back as it is.\n\n")
    text.append("ctrl+q quits", style="dim")
    return text


class TooSmall(Static):
    DEFAULT_CSS = """
    TooSmall {
        display: none;
        width: 100%;
        height: 100%;
        content-align: center middle;
        background: $background;
    }
    """

    def on_mount(self) -> None:
        self.show_size(*self.app.size)

    def show_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.screen.set_class(small, "-too-small")
        if small:
            self.update(too_small_words(width, height, self.app.is_web))
