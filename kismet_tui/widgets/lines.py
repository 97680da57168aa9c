"""`Lines`: a few lines of Rich Text drawn through Textual's line API.

Static turns its Text into Textual Content and lays it out on every update; for the dice,
drawn again on every hold with many small styled runs (each pip its own colour), that was
most of what a key press cost to draw. These lines are rendered to strips once per change
and handed out as they are, cropped or padded to the widget's width.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

NO_STYLE = Style()


class Lines(Widget):
    DEFAULT_CSS = """
    Lines { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = Text()
        self.strips: list[Strip] = []

    def show(self, text: Text) -> None:
        """Draw `text` from now on (a repaint only: the widget's size stays as it is)."""
        console = self.app.console
        self.text = text
        # Every segment gets a style (an unstyled run is None from Rich, which Textual's
        # line filters do not all accept).
        self.strips = [
            Strip(
                [
                    Segment(seg.text, seg.style or NO_STYLE, seg.control)
                    for seg in line.render(console)
                ],
                line.cell_len,
            )
            for line in text.split("\n", allow_blank=True)
        ]
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.strips)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        strip = self.strips[y] if y < len(self.strips) else Strip.blank(0, self.rich_style)
        return strip.crop_extend(0, width, self.rich_style)
