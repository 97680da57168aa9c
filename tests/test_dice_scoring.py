"""The dice scorecard: every box against hand-checked rolls, the joker, the Basic bonus."""

import pytest

from kismet_tui.rules import IllegalAction
from kismet_tui.rules.dice import (
    BASIC_BOXES,
    BOX_NAMES,
    BOXES,
    COLOR,
    KISMET_BOXES,
    basic_bonus,
    score,
)


def test_boxes_are_the_fifteen_of_the_card_in_order():
    assert BOXES == (
        "aces",
        "deuces",
        "treys",
        "fours",
        "fives",
        "sixes",
        "two_pair_same_color",
        "three_of_a_kind",
        "straight",
        "flush",
        "full_house",
        "full_house_same_color",
        "four_of_a_kind",
        "yarborough",
        "kismet",
    )
    assert BASIC_BOXES == BOXES[:6] and KISMET_BOXES == BOXES[6:]
    assert list(BOX_NAMES) == list(BOXES)
    assert BOX_NAMES["full_house_same_color"] == "Full House Same Color"
    assert BOX_NAMES["two_pair_same_color"] == "2 Pair Same Color"


def test_pip_colours():
    assert COLOR == {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}


# (dice, box, points), each worked out by hand.
TABLE = [
    # Basic section: the pips of the dice showing the box's face.
    ((3, 4, 4, 6, 4), "fours", 12),
    ((3, 4, 4, 6, 4), "treys", 3),
    ((3, 4, 4, 6, 4), "sixes", 6),
    ((3, 4, 4, 6, 4), "aces", 0),
    ((1, 1, 1, 2, 2), "aces", 3),
    ((2, 2, 5, 5, 5), "deuces", 4),
    ((5, 5, 5, 5, 5), "fives", 25),
    # 2 Pair Same Color: two different faces of one colour, each twice or more.
    ((1, 1, 6, 6, 3), "two_pair_same_color", 17),
    ((2, 2, 5, 5, 1), "two_pair_same_color", 15),
    ((3, 3, 4, 4, 6), "two_pair_same_color", 20),
    ((3, 3, 4, 4, 4), "two_pair_same_color", 18),  # a same-coloured full house has two pairs
    ((1, 1, 2, 2, 3), "two_pair_same_color", 0),  # black pair + red pair: different colours
    ((1, 6, 1, 5, 2), "two_pair_same_color", 0),  # one pair only
    ((4, 4, 4, 4, 2), "two_pair_same_color", 18),  # [D2] four of a kind counts
    ((6, 6, 6, 6, 6), "two_pair_same_color", 30),  # [D2] so does five of a kind
    # 3 of a Kind
    ((2, 2, 2, 5, 6), "three_of_a_kind", 17),
    ((2, 2, 2, 2, 6), "three_of_a_kind", 14),
    ((2, 2, 5, 5, 6), "three_of_a_kind", 0),
    # Straight: only 1-5 and 2-6, any order.
    ((1, 2, 3, 4, 5), "straight", 30),
    ((6, 4, 2, 5, 3), "straight", 30),
    ((1, 2, 3, 4, 6), "straight", 0),
    ((1, 3, 4, 5, 6), "straight", 0),
    ((2, 3, 4, 5, 5), "straight", 0),
    # Flush: all five dice one colour.
    ((2, 2, 5, 5, 5), "flush", 35),
    ((1, 6, 6, 1, 1), "flush", 35),
    ((3, 4, 3, 4, 4), "flush", 35),
    ((5, 5, 5, 5, 5), "flush", 35),  # five of a kind is one colour
    ((2, 2, 5, 5, 1), "flush", 0),
    # Full House: three of one face, two of another; colour does not matter.
    ((2, 2, 2, 6, 6), "full_house", 33),
    ((3, 3, 4, 4, 4), "full_house", 33),
    ((4, 4, 4, 4, 4), "full_house", 0),  # [D3] five of a kind is not a natural full house
    ((4, 4, 4, 4, 2), "full_house", 0),
    # Full House Same Color
    ((3, 3, 4, 4, 4), "full_house_same_color", 38),
    ((1, 1, 1, 6, 6), "full_house_same_color", 35),
    ((2, 2, 2, 6, 6), "full_house_same_color", 0),
    ((5, 5, 5, 5, 5), "full_house_same_color", 0),  # [D3]
    # 4 of a Kind
    ((6, 6, 6, 6, 1), "four_of_a_kind", 50),
    ((6, 6, 6, 6, 6), "four_of_a_kind", 55),
    ((6, 6, 6, 1, 1), "four_of_a_kind", 0),
    # Yarborough: always the sum.
    ((1, 2, 4, 5, 6), "yarborough", 18),
    ((1, 1, 1, 1, 1), "yarborough", 5),
    # Kismet: five of one face.
    ((1, 1, 1, 1, 1), "kismet", 55),
    ((6, 6, 6, 6, 6), "kismet", 80),
    ((6, 6, 6, 6, 5), "kismet", 0),
]


@pytest.mark.parametrize("dice,box,points", TABLE)
def test_score_table(dice, box, points):
    assert score(box, dice) == points
    assert score(box, list(dice)) == points


def test_every_box_has_hand_checked_rows():
    assert {box for _, box, _ in TABLE} == set(BOXES)


def test_d2_four_of_a_kind_is_two_pair_same_color():
    for face in range(1, 7):
        other = 1 if face != 1 else 2
        dice = (face,) * 4 + (other,)
        assert score("two_pair_same_color", dice) == sum(dice)


def test_d3_five_of_a_kind_is_not_a_natural_full_house():
    for face in range(1, 7):
        dice = (face,) * 5
        assert score("full_house", dice) == 0
        assert score("full_house_same_color", dice) == 0
        assert score("full_house", dice, joker=True) == 5 * face + 15
        assert score("full_house_same_color", dice, joker=True) == 5 * face + 20


def test_d5_joker_meets_every_pattern_but_the_straight():
    dice = (3, 3, 3, 3, 3)
    expected = {
        "aces": 0,
        "deuces": 0,
        "treys": 15,
        "fours": 0,
        "fives": 0,
        "sixes": 0,
        "two_pair_same_color": 15,
        "three_of_a_kind": 15,
        "straight": 0,
        "flush": 35,
        "full_house": 30,
        "full_house_same_color": 35,
        "four_of_a_kind": 40,
        "yarborough": 15,
        "kismet": 65,
    }
    assert {box: score(box, dice, joker=True) for box in BOXES} == expected


def test_d5_joker_needs_five_of_a_kind():
    with pytest.raises(IllegalAction, match="five of a kind"):
        score("full_house", (3, 3, 3, 4, 4), joker=True)
    with pytest.raises(IllegalAction, match="five of a kind"):
        score("aces", (1, 1, 1, 1, 2), joker=True)


@pytest.mark.parametrize(
    "total,bonus",
    [
        (0, 0),
        (62, 0),
        (63, 35),
        (70, 35),
        (71, 55),
        (77, 55),
        (78, 75),
        (105, 75),
    ],
)
def test_basic_bonus_tiers(total, bonus):
    assert basic_bonus(total) == bonus


@pytest.mark.parametrize(
    "box,dice,words",
    [
        ("chance", (1, 2, 3, 4, 5), "no box called 'chance'"),
        ("aces", (1, 2, 3, 4), "exactly five dice"),
        ("aces", (1, 2, 3, 4, 7), "1 to 6"),
        ("aces", (1, 2, 3, 4, True), "1 to 6"),
        ("aces", "12345", "exactly five dice"),
    ],
)
def test_bad_input_is_refused_in_words(box, dice, words):
    with pytest.raises(IllegalAction, match=words):
        score(box, dice)
