"""Player names cut to fit a place on screen: a cut name ends in "…", so it never reads as a
whole name, and widths count terminal cells (a wide character takes two)."""

from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size

from .glyphs import glyph


def fits(name: str, width: int) -> bool:
    return cell_len(name) <= width


REMARK = re.compile(r"\s*\([^)]*\)")  # "Bot 1 (medium)": the bracketed part is a remark


def fit(name: str, width: int, pad: bool = False) -> str:
    """`name` whole if it fits in `width` cells; else without a bracketed remark if that
    fits ("Bot 1 (medium)" -> "Bot 1", not "Bot 1 (m…"); else cut with an ellipsis. With
    `pad`, filled with spaces to exactly `width` cells (for columns)."""
    if width <= 0:
        return ""
    if not fits(name, width):
        bare = REMARK.sub("", name).strip()
        name = (
            bare
            if bare and fits(bare, width)
            else set_cell_size(name, width - 1).rstrip() + glyph("…")
        )
    return set_cell_size(name, width) if pad else name


def possessive(name: str, thing: str, width: int) -> str:
    """ "Ana's throw" when it fits in `width`; else "Throw: Bot 1 (me…" — a possessive is never
    glued onto a cut name."""
    whole = f"{name}'s {thing}"
    if fits(whole, width):
        return whole
    label = f"{thing[:1].upper()}{thing[1:]}: "
    return label + fit(name, width - cell_len(label))
