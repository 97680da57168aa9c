r"""Player-written text made safe to show in anybody's terminal.

Names and chat lines lose control characters (escape sequences included), format characters
(bidirectional overrides, zero-width joiners), and Rich/Textual markup brackets, which become
round brackets. Whitespace runs fold into one space.

    >>> clean_chat("hi [b]there[/b]\x1b[31m  !")
    'hi (b)there(/b)(31m !'
    >>> clean_name("\x00")
    'Player'
"""

from __future__ import annotations

import unicodedata

from . import limits

_BRACKETS = str.maketrans({"[": "(", "]": ")"})


def clean_text(text: str, max_chars: int) -> str:
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch.isspace():
            kept.append(" ")
        elif category[0] == "C":  # Cc control, Cf format, Cs surrogate, Co private, Cn unassigned
            continue
        else:
            kept.append(ch)
    folded = " ".join("".join(kept).split())
    return folded.translate(_BRACKETS)[:max_chars].strip()


def clean_name(name: str) -> str:
    """A display name: at most MAX_NAME characters; never empty."""
    return clean_text(name, limits.MAX_NAME) or "Player"


def clean_chat(text: str) -> str:
    """One chat line: at most MAX_CHAT characters (may come out empty)."""
    return clean_text(text, limits.MAX_CHAT)
