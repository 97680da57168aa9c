"""Which characters the drawings use: Unicode (box drawing, pips, marks) or plain ASCII.

A terminal whose locale has no UTF-8 (LANG=C, an old ssh client) shows box drawing and pips
as garbage, so the commands switch to ASCII (`use_ascii(True)`) when the terminal has no
Unicode (`terminal_has_unicode`: Windows Terminal, or a locale with UTF-8) or on `--ascii`. Then art.py draws dice and cards from ASCII pieces, the marks come from
`glyph()`, and whatever else reaches the terminal (Textual's borders and scroll bars, the
help's bullets, a name in another script) goes through `to_ascii` on its way out
(KismetApp.get_driver_class), cell for cell, so nothing moves.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping

from rich.cells import cell_len

ASCII = {
    "●": "o",
    "◌": "o",
    "×": "x",
    "▶": ">",
    "‖": "||",
    "…": "~",
    "│": "|",
    "✓": "+",
    "✗": "x",
    "★": "*",
    "✋": "*",
    "▮": "#",
    "·": ".",
    "–": "-",
    "≈": "~",
    "→": "->",
    "↑↓": "up/dn",
}
# (A grab "✋" is "*", not "#" like the pile "▮" beside it: " 3# *", never " 3# #".)
# What the rest becomes at the terminal, one cell for one cell.
CELL = {
    **{c: "-" for c in "─━═▔▁"},
    **{c: "|" for c in "│┃║▏▕▎▍▌▐"},
    **{c: "." for c in "╌╍┄┅┈┉"},
    **{c: ":" for c in "╎╏┆┇┊┋"},  # dotted: an empty place
    **{c: "+" for c in "┌┐└┘├┤┬┴┼╭╮╰╯╔╗╚╝╠╣╦╩╬┍┑┕┙┎┒┖┚"},
    **{c: "#" for c in "┏┓┗┛┣┫┳┻╋█▇▆▅▄▃▂▀"},
    "●": "o",
    "◌": "o",
    "•": "*",
    "·": ".",
    "…": "~",
    "×": "x",
    "✓": "+",
    "✗": "x",
    "★": "*",
    "✋": "#",
    "▮": "#",
    "–": "-",
    "—": "-",
    "≈": "~",
    "→": ">",
    "←": "<",
    "↑": "^",
    "↓": "v",
    "▶": ">",
    "‖": "|",
    "◀": "<",
    "▲": "^",
    "▼": "v",
    "»": ">",
    "«": "<",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "\u00a0": " ",
}
NON_ASCII = re.compile(r"[^\x00-\x7f]")
_state = {"ascii": False}


def _cell(match: re.Match) -> str:
    char = match.group()
    if char in CELL:
        return CELL[char]
    width = cell_len(char)
    if width == 0:
        return ""
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()  # é -> e
    return (plain + "?" * width)[:width] if plain else "?" * width


def to_ascii(text: str) -> str:
    """`text` with every non-ASCII character replaced by ASCII of the same width."""
    return NON_ASCII.sub(_cell, text)


def ascii_drawing() -> bool:
    """Whether the drawings are ASCII now."""
    return _state["ascii"]


def use_ascii(on: bool) -> None:
    _state["ascii"] = bool(on)


def ascii_mode() -> bool:
    return _state["ascii"]


def glyph(char: str) -> str:
    """`char` as the terminal can show it."""
    return ASCII.get(char, char) if _state["ascii"] else char


def terminal_has_unicode(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the terminal shows Unicode: Windows Terminal does (it sets WT_SESSION, on
    Windows and in a WSL shell alike); otherwise a locale naming UTF-8 says so (on Windows
    only terminals such as mintty set one). Windows' old console, which sets neither, gets
    ASCII; `--unicode` forces Unicode anywhere (kismet_tui/cli.py)."""
    env = os.environ if environ is None else environ
    return bool(env.get("WT_SESSION")) or locale_has_utf8(env)


def locale_has_utf8(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the locale (LC_ALL, else LC_CTYPE, else LANG, as POSIX reads them) names
    UTF-8. Python itself sets LC_CTYPE=C.UTF-8 when it starts under the C locale (PEP 538),
    so that value alone, with LANG saying otherwise or nothing, still means "C"."""
    env = os.environ if environ is None else environ
    value = env.get("LC_ALL") or ""
    if not value:
        ctype = env.get("LC_CTYPE") or ""
        coerced = ctype in ("C.UTF-8", "C.utf8") and "utf" not in (env.get("LANG") or "").lower()
        value = ctype if ctype and not coerced else env.get("LANG") or ""
    value = value.lower().replace("-", "")
    return "utf8" in value
