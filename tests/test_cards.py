"""The cards and dice shared by `race` and `knock` (docs/rules.md section 2, [D7])."""

import pytest

from kismet_tui.rules import IllegalAction, ScriptedRNG, SeededRNG, cards


def test_card_ids_are_one_per_set_and_number():
    ids = {cards.card_id(s, n) for s in range(8) for n in cards.NUMBERS}
    assert ids == set(range(88))
    red_12, blue_12 = cards.card_id(0, 12), cards.card_id(1, 12)
    assert red_12 != blue_12
    assert cards.number_of(red_12) == cards.number_of(blue_12) == 12
    assert (cards.set_of(red_12), cards.set_of(blue_12)) == (0, 1)
    assert (cards.back_of(red_12), cards.back_of(blue_12)) == ("red", "blue")
    for card in range(88):
        assert cards.card_id(cards.set_of(card), cards.number_of(card)) == card


def test_deck_holds_each_set_once():
    deck = cards.deck(3)
    assert len(deck) == 33 and len(set(deck)) == 33
    assert sorted(cards.number_of(c) for c in deck) == sorted(list(cards.NUMBERS) * 3)


def test_d7_default_chip_table_is_the_rarity_ladder():
    table = dict(zip(cards.NUMBERS, cards.DEFAULT_CHIPS))
    assert table == {2: 6, 3: 5, 4: 4, 5: 3, 6: 2, 7: 1, 8: 2, 9: 3, 10: 4, 11: 5, 12: 6}
    assert cards.chips_option({}) == list(cards.DEFAULT_CHIPS)
    assert cards.chip(7, cards.DEFAULT_CHIPS) == 1 and cards.chip(12, cards.DEFAULT_CHIPS) == 6


def test_d7_a_table_may_enter_its_own_chips():
    mine = [9, 8, 7, 6, 5, 0, 5, 6, 7, 8, 9]
    assert cards.chips_option({"chips": mine}) == mine


@pytest.mark.parametrize(
    "bad, words",
    [
        ([1] * 10, "11 values"),
        ("6,5,4", "11 values"),
        ([1] * 10 + [-1], "between 0 and"),
        ([1] * 10 + [1.5], "whole number"),
        ([1] * 10 + [True], "whole number"),
        ([1] * 10 + [100], "between 0 and"),
    ],
)
def test_d7_bad_chip_tables_are_refused_in_words(bad, words):
    with pytest.raises(IllegalAction) as caught:
        cards.chips_option({"chips": bad})
    assert words in caught.value.words


@pytest.mark.parametrize(
    "dice, expected, joker",
    [
        ([2, 3, 5], [5, 7, 8], False),  # the rulebook's example
        ([2, 4, 5], [6, 7, 9], False),
        ([3, 3, 5], [6, 8], False),  # a pair: two targets
        ([1, 1, 1], [2], True),  # joker throw: one target
        ([2, 2, 2], [4], True),
        ([6, 2, 6], [8, 12], False),
    ],
)
def test_targets_are_the_sums_of_two_dice(dice, expected, joker):
    assert cards.targets(dice) == expected
    assert cards.is_joker(dice) is joker


def test_roll_three_draws_three_dice_in_order():
    assert cards.roll_three(ScriptedRNG([4, 1, 6])) == [4, 1, 6]
    stream, copy = SeededRNG(b"cards"), SeededRNG(b"cards")
    assert cards.roll_three(stream) == [copy.die(), copy.die(), copy.die()]


def test_card_info_and_words():
    info = cards.card_info(cards.card_id(2, 7), cards.DEFAULT_CHIPS)
    assert info == {"id": 27, "number": 7, "chip": 1, "set": 2, "back": "green"}
    assert cards.say_numbers([8]) == "8"
    assert cards.say_numbers([8, 12]) == "8 and 12"
    assert cards.say_numbers([5, 7, 8]) == "5, 7 and 8"


@pytest.mark.parametrize("ruleset", ["race", "knock"])
def test_table_options_have_defaults_and_refuse_in_words(ruleset):
    from kismet_tui.rules import IllegalAction, normalize_options

    options = normalize_options(ruleset, {})
    assert options["away_limit_ms"] == 30_000
    assert options["chips"] == [6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6]
    for bad, words in [
        ({"speed": 1}, "no option called speed"),
        ({"away_limit_ms": -5}, "between"),
        ({"away_limit_ms": "soon"}, "whole number"),
    ]:
        with pytest.raises(IllegalAction) as refused:
            normalize_options(ruleset, bad)
        assert words in refused.value.words
