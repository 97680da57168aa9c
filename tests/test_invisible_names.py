"""Names: only what a person sees counts (issue 28, attack 5).

Invisible marks (U+034F, variation selectors, every other default-ignorable code point) and
blank letters (the Hangul fillers, the braille blank) drew names exactly like "nora" or
"Bot 1 (easy)" that the look-alike check took for new ones. Each family is tried here
against both names, in the key (protocol.text.name_key) and in the name as cleaned, and a
few through a real host's handshake over TCP; a name that shows no letter or digit is
refused in words.
"""

from __future__ import annotations

import pytest

from kismet_tui.net import RequestError
from protocol.text import clean_name, clean_text, name_key, shows_letter_or_digit
from tests.netutil import connected, running_host

# One or more code points of each family that draws nothing (or a blank) where it stands.
INVISIBLE = {
    "combining grapheme joiner": ["\u034f"],
    "variation selectors": ["\ufe00", "\ufe0e", "\ufe0f"],
    "variation selectors supplement": ["\U000e0100", "\U000e01ef"],
    "Mongolian variation selectors": ["\u180b", "\u180c", "\u180d", "\u180f"],
    "Mongolian vowel separator": ["\u180e"],
    "Khmer inherent vowels": ["\u17b4", "\u17b5"],
    "unassigned default-ignorables": [
        "\u2065",
        "\ufff0",
        "\ufff8",
        "\U000e0000",
        "\U000e01f0",
        "\U000e0fff",
    ],
    "tags": ["\U000e0001", "\U000e0020", "\U000e007f"],
    "format characters": [
        "\u00ad",
        "\u061c",
        "\u200b",
        "\u200c",
        "\u200d",
        "\u2060",
        "\u2062",
        "\ufeff",
        "\U0001bca0",
        "\U0001d173",
    ],
    "Hangul fillers": ["\u115f", "\u1160", "\u3164", "\uffa0"],
    "braille blank": ["\u2800"],
    "other blank letters": ["\U00016fe4", "\U0001d159"],
    "controls": ["\x00", "\x07", "\x7f", "\x80"],
}
EVERY = [(family, mark) for family, marks in INVISIBLE.items() for mark in marks]
IDS = [f"{family} U+{ord(mark):04X}" for family, mark in EVERY]


def disguises(name: str, mark: str) -> list[str]:
    """`name` with `mark` at its start, in its middle (after the first letter) and at its end."""
    return [mark + name, name[0] + mark + name[1:], name + mark, name + mark * 3]


@pytest.mark.parametrize("family, mark", EVERY, ids=IDS)
@pytest.mark.parametrize("name", ["nora", "Bot 1 (easy)"])
def test_an_invisible_or_blank_code_point_changes_neither_the_key_nor_the_name(family, mark, name):
    for disguised in disguises(name, mark):
        assert name_key(disguised) == name_key(name), (family, disguised)
        assert clean_name(disguised) == name, (family, disguised)


def test_emoji_keep_what_draws_them():
    """What is removed from letters stays where it draws a picture: a variation selector
    after an emoji or in a keycap, a joiner between two emoji; the key ignores them."""
    heart, keycap, family = "\u2764\ufe0f", "1\ufe0f\u20e3", "\U0001f469\u200d\U0001f467"
    assert clean_text(f"{heart} {keycap} {family}") == f"{heart} {keycap} {family}"
    assert name_key(f"Ana {heart}") == name_key("Ana \u2764")


@pytest.mark.parametrize(
    "name, shows",
    [
        ("nora", True),
        ("Zoë", True),
        ("7", True),
        ("\u5c0f\u660e", True),
        ("\u0986\u09a8\u09be", True),
        ("...", False),
        ("\U0001f3b2", False),
        ("-_-", False),
        ("\u3164\u3164", False),
        ("\u2800", False),
        ("\u034f", False),
        ("\u115f\u1160", False),
    ],
)
def test_a_name_must_show_a_letter_or_a_digit(name, shows):
    assert shows_letter_or_digit(name) is shows


@pytest.mark.network
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "disguised",
    [
        "nora\u034f",
        "no\ufe0fra",
        "n\U000e0100ora",
        "no\u3164ra",
        "\u115fnora",
        "nora\u1160",
        "nor\uffa0a",
        "\u2800nora",
        "nora\u17b4",
        "no\u180bra",
        "nora\ufff0",
    ],
)
async def test_through_the_handshake_a_disguised_nora_is_refused(tmp_path, disguised):
    async with running_host(tmp_path) as host:
        async with connected(host, "nora"):
            with pytest.raises(RequestError) as refused:
                async with connected(host, disguised):
                    pass
            assert refused.value.code == "name_taken"
            assert refused.value.words == (
                "Somebody called nora is already at this host: please pick another name."
            )
            assert [p.name for p in host.players.values()] == ["nora"]


@pytest.mark.network
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "disguised",
    [
        "Bot 1 (easy)\u034f",
        "Bot\u3164 1 (easy)",
        "\u2800Bot 1 (easy)",
        "Bot 1\ufe0f (easy)",
        "Bot 1 (\U000e0100easy)",
        "B\u115fot 1 (easy)",
    ],
)
async def test_through_the_handshake_a_disguised_bot_name_is_refused(tmp_path, disguised):
    async with running_host(tmp_path) as host:
        with pytest.raises(RequestError) as refused:
            async with connected(host, disguised):
                pass
        assert refused.value.code == "name_taken"
        assert refused.value.words == (
            "Names like Bot 1 (easy) are kept for the host's bots: please pick another name."
        )
        assert not host.players


@pytest.mark.network
@pytest.mark.timeout(60)
async def test_through_the_handshake_a_name_with_nothing_to_read_is_refused(tmp_path):
    async with running_host(tmp_path) as host:
        for blank in ["\u2800\u2800.", "\u3164-\u3164", "\U0001f3b2"]:
            with pytest.raises(RequestError) as refused:
                async with connected(host, blank):
                    pass
            assert refused.value.code == "name_taken"
            assert refused.value.words == (
                "A name needs a letter or a digit that people can see: please pick another name."
            )
        assert not host.players
        # A name of invisible code points only is no name at all: the host's default.
        async with connected(host, "\u3164\u034f") as nobody:
            assert nobody.name == "Player"
        async with connected(host, "Zo\u3164\u00eb") as zoe:
            assert zoe.name == "Zo\u00eb"
