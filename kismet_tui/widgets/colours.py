"""Whether the terminal gets colour at all, and the app made to send none when it does not.

The no-color convention (https://no-color.org): a NO_COLOR that is set and not empty asks
for no colour codes. A terminal whose terminfo name ends in -mono or -m (xterm-mono,
vt100-m) cannot show colour either. Textual's own answer to NO_COLOR turns every colour into
a grey (still colour codes, and it broke on unstyled cells); here the colours go entirely,
bold, underline and reverse stay, and everything a colour says is also said in glyphs
(the die's colour word, HELD, the marks on cards).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from textual.app import App
from textual.filter import Monochrome, NoColor

MONOCHROME_TERM = re.compile(r"-(mono|m)$")


def colourless_terminal(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return bool(env.get("NO_COLOR")) or bool(MONOCHROME_TERM.search(env.get("TERM", "")))


def send_colour_or_not(app: App, environ: Mapping[str, str] | None = None) -> None:
    """Call once from the app's __init__: sends no colour codes on a colourless terminal.
    (Textual keeps its line filters in a private list; NoColor is its own filter.)"""
    colourless = colourless_terminal(environ)
    app.no_color = colourless
    filters = [f for f in app._filters if not isinstance(f, (Monochrome, NoColor))]
    app._filters = filters + [NoColor()] if colourless else filters
