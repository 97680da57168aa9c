"""The footer of every screen: Textual's own, a little tighter when drawn in ASCII.

In ASCII (a LANG=C terminal, `--ascii`) keys are named in words ("enter", "bksp", "k/j")
instead of one-cell symbols, so the footer would outgrow 80 columns and cut the help key
off; the compact style (one space less around each key) keeps it whole.
"""

from __future__ import annotations

from textual.widgets import Footer

from .glyphs import ascii_mode


class KeyFooter(Footer):
    def __init__(self) -> None:
        super().__init__(compact=ascii_mode())
