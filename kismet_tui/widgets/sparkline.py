"""A trend in one line of text: each value a bar of eight heights ("▁▂▃▄▅▆▇█"), or of eight
plain characters where the terminal draws ASCII (glyphs.py)."""

from __future__ import annotations

from collections.abc import Sequence

from .glyphs import ascii_drawing

BARS = "▁▂▃▄▅▆▇█"
ASCII_BARS = "_.,-=+*#"


def sparkline(values: Sequence[int]) -> str:
    """One bar per value, lowest to highest between the least and the greatest of them
    (all alike: all at the middle height)."""
    bars = ASCII_BARS if ascii_drawing() else BARS
    if not values:
        return ""
    low, high = min(values), max(values)
    if high == low:
        return bars[3] * len(values)
    top = len(bars) - 1
    return "".join(bars[round((value - low) * top / (high - low))] for value in values)
