r"""Player-written text made safe to show in anybody's terminal, keeping what they typed.

Names and chat lines keep every printable character: brackets, angle brackets, accents,
emoji (joined ones too). What goes:
- whole terminal escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL or ESC \`,
  DCS/SOS/PM/APC strings, two-byte escapes, and their 8-bit C1 forms), not only the ESC byte;
- every other control (Cc) and format (Cf: bidirectional overrides, zero-width characters)
  character, surrogates and private-use characters; a zero-width joiner stays only between
  two emoji, where it draws one picture;
- every other code point that draws nothing: Unicode's default-ignorable code points
  (DerivedCoreProperties.txt: the combining grapheme joiner U+034F, variation selectors, the
  Khmer inherent vowels, unassigned ones kept for such uses) and the blank letters (the
  Hangul fillers U+115F U+1160 U+3164 U+FFA0, the braille blank U+2800, and the like). A
  variation selector 15 or 16 stays only after an emoji or in a keycap ("1", U+FE0F,
  U+20E3), where it chooses how the picture is drawn;
- combining marks beyond MAX_MARKS on one character (the "zalgo" pile-up);
- runs of whitespace, folded into one space.
Nothing is rewritten: every client renders names and chat as plain text, never as markup.
Lengths are the callers' (protocol.requests), in their own words.

`name_key` says when two names are one to a reader: NFKC, case folded, and Unicode's
confusable skeleton (protocol.skeleton), so "NORA", "ｎｏｒａ" and "nora" are one name, and
so are "сarol" (a Cyrillic с) and "carol"; whatever draws nothing is gone from it first, so
"nora" with a U+034F or a Hangul filler is "nora" too. `shows_letter_or_digit` says whether a
name has anything to read: the host refuses one that shows no letter and no digit.

    >>> clean_chat("hi [b]there[/b]\x1b[31m  !")
    'hi [b]there[/b] !'
"""

from __future__ import annotations

import functools
import re
import unicodedata

from . import limits
from .skeleton import skeleton

MAX_MARKS = 3  # combining marks kept on one base character (Vietnamese needs 2, keycaps 2)

_ZWJ = "\u200d"
_KEYCAP = "\u20e3"
_PRESENTATION = "\ufe0e\ufe0f"  # variation selectors 15 and 16: text or emoji picture
# Unicode 15's Default_Ignorable_Code_Point, whole (it is stable: new ones come only in these
# ranges), then the blank letters, which Unicode counts as letters or symbols but fonts draw
# as nothing: they would let a name look like another one.
_DEFAULT_IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_BLANK_LETTERS = "\u2800\U00016fe4\U0001d159"  # braille blank, Khitan filler, null notehead
_INVISIBLE = re.compile(f"[{_DEFAULT_IGNORABLE}{_BLANK_LETTERS}]")
# ESC (or its 8-bit C1 twin) with what follows it as one sequence:
#   CSI: ESC [ params intermediates final      (C1: \x9b)
#   OSC, DCS, SOS, PM, APC: ESC ] P X ^ _ ... up to BEL or ST (ESC \ or \x9c), or the end
#   any other: ESC and the one character after it
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b.?",
    re.DOTALL,
)


def _emoji(ch: str) -> bool:
    return unicodedata.category(ch) in ("So", "Sk")


def clean_text(text: str) -> str:
    """`text` with escape sequences, controls and format characters gone, combining marks
    limited and whitespace folded; no length limit."""
    text = unicodedata.normalize("NFC", _ESCAPES.sub("", text))
    kept: list[str] = []
    marks = 0
    for index, ch in enumerate(text):
        if ch.isspace():
            kept.append(" ")
            marks = 0
            continue
        category = unicodedata.category(ch)
        if ch == _ZWJ:
            # Between two emoji (a skin tone or variation selector may come between) it
            # draws one picture: keep it there, and only there.
            before = next(
                (c for c in reversed(kept) if unicodedata.category(c) not in ("Mn", "Me")), ""
            )
            after = text[index + 1] if index + 1 < len(text) else ""
            if before and after and _emoji(before) and _emoji(after):
                kept.append(ch)
            continue
        if category in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            continue
        if _INVISIBLE.match(ch):
            # Only a picture's own selector stays: after an emoji (its marks between), or
            # between a keycap's character and the keycap.
            base = next(
                (c for c in reversed(kept) if unicodedata.category(c) not in ("Mn", "Me")), ""
            )
            after = text[index + 1] if index + 1 < len(text) else ""
            if not (
                ch in _PRESENTATION
                and kept
                and kept[-1] != " "
                and (_emoji(base) or after == _KEYCAP)
            ):
                continue
        if category in ("Mn", "Me"):
            if not kept or kept[-1] == " " or marks >= MAX_MARKS:
                continue  # a mark with nothing under it, or one too many
            marks += 1
        else:
            marks = 0
        kept.append(ch)
    return " ".join("".join(kept).split())


def clean_name(name: str) -> str:
    """A display name as typed, made safe; at most MAX_NAME characters; never empty."""
    return clean_text(name)[: limits.MAX_NAME].strip() or "Player"


def clean_chat(text: str) -> str:
    """One chat line as typed, made safe (may come out empty; its length is the caller's)."""
    return clean_text(text)


# Cached: the host compares a new name with every name present at each hello (the handshake),
# and a key costs NFKC, case folding and the confusables walk; a storm of 200 logins asked for
# 40,000 keys of the same few hundred names.
@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """What `name` looks like, as one string: names that look alike have one key.

    Cleaned, NFKC, case folded, then the confusable skeleton; folded and mapped once more,
    because a skeleton may be a capital ("0" looks like "O", which folds to "o").

    >>> name_key("NORA") == name_key("ｎｏｒａ") == name_key("n0ra") == name_key("nora")
    True
    """
    key = clean_text(name)
    for _ in range(2):
        # (What draws nothing goes before each step: NFKC makes U+1160 of U+FFA0.)
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", key).casefold())
        key = skeleton(_INVISIBLE.sub("", folded))
    return _INVISIBLE.sub("", key)


def shows_letter_or_digit(name: str) -> bool:
    """Whether `name`, cleaned, shows at least one letter or digit (of any script): a name
    of dots, dashes, emoji or blanks alone says nothing anyone can read out or tell apart.

    >>> shows_letter_or_digit("nora"), shows_letter_or_digit("\u3164..."), shows_letter_or_digit("7")
    (True, False, True)
    """
    return any(unicodedata.category(ch)[0] in "LN" for ch in clean_text(name))
