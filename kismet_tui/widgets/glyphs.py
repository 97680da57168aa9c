"""Which characters the drawings use: Unicode (box drawing, pips, marks) or plain ASCII.

A terminal whose locale has no UTF-8 (LANG=C, an old ssh client) shows box drawing and pips
as garbage, so the commands switch to ASCII (`use_ascii(True)`) when the locale has no UTF-8
or on `--ascii`. Every drawing asks `glyph()` for its marks, and art.py draws dice and cards
from ASCII pieces, so the game stays easy to read either way.
"""

from __future__ import annotations

import os

ASCII = {
    "●": "o", "◌": "o", "×": "x", "▶": ">", "…": "~", "│": "|", "✓": "+", "✗": "x",
    "★": "*", "✋": "#", "▮": "#", "·": ".", "–": "-", "≈": "~", "→": "->", "↑↓": "up/dn",
}
_state = {"ascii": False}


def use_ascii(on: bool) -> None:
    _state["ascii"] = bool(on)


def ascii_mode() -> bool:
    return _state["ascii"]


def glyph(char: str) -> str:
    """`char` as the terminal can show it."""
    return ASCII.get(char, char) if _state["ascii"] else char


def locale_has_utf8(environ=None) -> bool:
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
