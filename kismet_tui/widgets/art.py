"""Drawing dice and cards as rich Text, in the 16 ANSI colours only.

Every drawing is a list of lines (rich Text), so callers can lay several side by side. Colours
are ANSI names, so a 16-colour terminal shows them as they are meant. In ASCII mode
(glyphs.use_ascii) the same drawings are made of + - | o, the same size.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from .glyphs import ascii_mode
from .names import fit

# Pip colours of the 1964 game: 1 and 6 black, 2 and 5 red, 3 and 4 green.
PIP_COLOUR = {1: "black", 2: "red", 3: "green", 4: "green", 5: "red", 6: "black"}

# Which of the 3x3 pip places (row, column) each face uses.
PIPS = {
    1: {(1, 1)},
    2: {(0, 2), (2, 0)},
    3: {(0, 2), (1, 1), (2, 0)},
    4: {(0, 0), (0, 2), (2, 0), (2, 2)},
    5: {(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)},
    6: {(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)},
}

# One colour per seat, so a player's grabs and name look the same everywhere.
SEAT_COLOURS = [
    "cyan",
    "magenta",
    "yellow",
    "bright_blue",
    "bright_green",
    "bright_red",
    "bright_cyan",
    "bright_magenta",
]

DIE_WIDTH = 7
FACE = "bright_white"


def seat_colour(seat: int | None) -> str:
    return "white" if seat is None or seat < 0 else SEAT_COLOURS[seat % len(SEAT_COLOURS)]


BIG_DIE_WIDTH, BIG_DIE_HEIGHT = 13, 7  # die_lines(big=True): for screens with room to spare
BIG_DICE_ROOM = (150, 45)  # a screen at least this large draws big dice (a 120x40 one not)


def big_dice(width: int, height: int) -> bool:
    """Whether a screen of this size draws its dice big (the dice and knock screens)."""
    return width >= BIG_DICE_ROOM[0] and height >= BIG_DICE_ROOM[1]


def die_lines(
    face: int | None, held: bool = False, coloured: bool = True, big: bool = False
) -> list[Text]:
    """A die five lines tall and seven wide: a light face with coloured pips, and (when
    `coloured`) the pips' colour written in the bottom edge ("black", "red", "green").

    `face` None draws an empty, dim die (not thrown yet). A held die gets a heavy yellow frame.
    The lines are shared between calls (a hold draws the dice again): copy one before
    changing it.
    """
    return list(_die_lines(face, held, coloured, ascii_mode(), big))


@lru_cache(maxsize=128)
def _die_lines(
    face: int | None, held: bool, coloured: bool, plain: bool, big: bool
) -> tuple[Text, ...]:
    lines = _draw_die(face, held, coloured, plain)
    return tuple(_bigger(lines) if big else lines)


def _bigger(lines: list[Text]) -> list[Text]:
    """A die seven lines tall and thirteen wide (BIG_DIE_WIDTH) from the small one:
    each pip row spread over the wider face (a space beside each pip, three between), a
    blank row between pip rows, the edges drawn longer."""
    top, *rows, bottom = lines

    rule = top.plain[1]  # (the bottom edge may hold the colour word: the top's rule it is)

    def longer(edge: Text) -> Text:  # the rule (or colour word) centred on a longer edge
        corner = edge[:1]
        pad = Text(rule * 3, corner.spans[0].style if corner.spans else edge.style)
        return corner + pad + edge[1:-1] + pad + edge[-1:]

    def spread(row: Text) -> Text:
        side, pips, end = row[:1], row[1:-1], row[-1:]
        blank = pips[1:2]  # (a face-coloured space)
        out = side + blank
        for col in range(3):
            if col:
                out += blank + blank + blank
            out += pips[col * 2 : col * 2 + 1]
        return out + blank + end

    def empty(row: Text) -> Text:
        return (
            row[:1]
            + Text(
                " " * (BIG_DIE_WIDTH - 2), row[1:2].spans[0].style if row[1:2].spans else row.style
            )
            + row[-1:]
        )

    out = [longer(top)]
    for index, row in enumerate(rows):
        if index:
            out.append(empty(spread(row)))
        out.append(spread(row))
    out.append(longer(bottom))
    return out


def _draw_die(face: int | None, held: bool, coloured: bool, plain: bool) -> list[Text]:
    if face is None:
        frame = Style(color="bright_black")
        side = ":" if plain else "│"
        lines = [Text("+.....+" if plain else "╭─────╮", frame)]
        lines += [Text(f"{side}     {side}", frame) for _ in range(3)]
        lines.append(Text("+.....+" if plain else "╰─────╯", frame))
        return lines
    edge = (
        Style(color="yellow", bgcolor=FACE, bold=True)
        if held
        else Style(color="black", bgcolor=FACE)
    )
    if plain:
        corners = ("#", "=", "#", "#", "#", "#") if held else ("+", "-", "+", "|", "+", "+")
    else:
        corners = ("┏", "━", "┓", "┃", "┗", "┛") if held else ("╭", "─", "╮", "│", "╰", "╯")
    tl, h, tr, v, bl, br = corners
    dot = "o" if plain else "●"
    pip = Style(color=PIP_COLOUR[face] if coloured else "black", bgcolor=FACE, bold=True)
    blank = Style(bgcolor=FACE)
    lines = [Text(tl + h * 5 + tr, edge)]
    for row in range(3):
        line = Text(v, edge)
        for col in range(3):
            if col:
                line.append(" ", blank)
            line.append(
                dot if (row, col) in PIPS[face] else " ", pip if (row, col) in PIPS[face] else blank
            )
        line.append(v, edge)
        lines.append(line)
    if not coloured:
        lines.append(Text(bl + h * 5 + br, edge))
        return lines
    # The colour in words too, so it survives no colour at all (NO_COLOR, a monochrome
    # terminal) and is never told by red against green alone.
    word = PIP_COLOUR[face]
    left = (5 - len(word)) // 2
    bottom = Text(bl + h * left, edge)
    bottom.append(word, pip)
    bottom.append(h * (5 - len(word) - left) + br, edge)
    lines.append(bottom)
    return lines


def side_by_side(blocks: list[list[Text]], gap: int = 1) -> list[Text]:
    """Join equal-height drawings left to right with `gap` spaces between them."""
    if not blocks:
        return []
    height = max(len(block) for block in blocks)
    out = []
    for row in range(height):
        line = Text()
        for index, block in enumerate(blocks):
            if index:
                line.append(" " * gap)
            if row < len(block):
                line.append_text(block[row])
            else:
                line.append(" " * (block[0].cell_len if block else 0))
        out.append(line)
    return out


def stack(lines: list[Text]) -> Text:
    """Lines into one Text with newlines, ready for a Static."""
    return Text("\n").join(lines)


CARD_WIDTH = 8


BIG_CARD_WIDTH, BIG_CARD_HEIGHT = 12, 5


def big_card_lines(
    number: int | None, chip: int | None, key: str = "", **kwargs: Any
) -> list[Text]:
    """The same card five lines tall and twelve wide, for terminals with room to spare: the
    normal card widened, with a blank line over the number."""
    lines = card_lines(number, chip, key, **kwargs)
    rule = lines[0].plain[-2]  # the edge's line character (the top edge ends in it)
    out = []
    for index, line in enumerate(lines):
        inner, corner = line[:-1], line[-1:]
        edge_style = corner.spans[0].style if corner.spans else corner.style
        if index in (0, len(lines) - 1):
            widened = inner.copy()
            widened.append(rule * 4, edge_style)  # a longer edge
        else:
            widened = inner[:1] + Text("  ") + inner[1:] + Text("  ")  # re-centred inside
        widened.append_text(corner)
        out.append(widened)
    blank = Text(out[1].plain[:1], edge_style) + Text(" " * (BIG_CARD_WIDTH - 2)) + out[1][-1:]
    return [out[0], blank, out[1], out[2], out[3]]


def card_lines(
    number: int | None,
    chip: int | None,
    key: str = "",
    *,
    owner: str | None = None,
    owner_colour: str = "white",
    state: str = "open",
) -> list[Text]:
    """A card four lines tall and eight wide: hotkey in the top edge, big number, chip.

    state: "open" (face up, nobody on it), "grabbed" (a player's hand is on it: `owner` shown
    in the bottom edge in their colour), "good" / "bad" (revealed right or wrong), "empty".
    """
    plain = ascii_mode()
    if number is None or state == "empty":
        frame = Style(color="bright_black")
        if plain:
            return [
                Text("+......+", frame),
                Text(":      :", frame),
                Text(":      :", frame),
                Text("+......+", frame),
            ]
        return [
            Text("┌╌╌╌╌╌╌┐", frame),
            Text("╎      ╎", frame),
            Text("╎      ╎", frame),
            Text("└╌╌╌╌╌╌┘", frame),
        ]
    tl, h, tr, v, bl, br = (
        ("+", "-", "+", "|", "+", "+") if plain else ("┌", "─", "┐", "│", "└", "┘")
    )
    edge_colour = {
        "open": "white",
        "grabbed": owner_colour,
        "good": "bright_green",
        "bad": "bright_red",
    }.get(state, "white")
    edge = Style(color=edge_colour, bold=state != "open")
    top = Text(tl, edge)
    if key:
        top.append(key, Style(color="black", bgcolor="bright_yellow", bold=True))
        top.append(h * (6 - len(key)), edge)
    else:
        top.append(h * 6, edge)
    top.append(tr, edge)
    num = Text(v, edge)
    num.append(f"{number:^6}", Style(color="bright_white", bold=True))
    num.append(v, edge)
    chip_line = Text(v, edge)
    chip_line.append(
        f"{'(' + str(chip) + ')' if chip is not None else '':^6}", Style(color="yellow")
    )
    chip_line.append(v, edge)
    bottom = Text(bl, edge)
    if owner:
        label = fit(owner, 6)
        bottom.append(label, Style(color=owner_colour, bold=True))
        bottom.append(h * (6 - cell_len(label)), edge)
    else:
        bottom.append(h * 6, edge)
    bottom.append(br, edge)
    return [top, num, chip_line, bottom]
