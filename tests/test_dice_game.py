"""The dice game (docs/rules.md section 1, [D18] of section 5) with scripted dice.

Roll-off dice come first in every script: two seats with [6, 1] make seat 0 start.
"""

import pytest

from kismet_tui.rules import HOST, IllegalAction, ScriptedRNG, new_game
from kismet_tui.rules.dice import BASIC_BOXES, BOXES, normalize_options
from tests.rules_util import refused

KISMET_66666 = [6, 6, 6, 6, 6]


def game(seats=2, dice=(), options=None, start_ms=0):
    """A game whose roll-off makes seat 0 start, then the scripted dice."""
    rolloff = [] if seats == 1 else [6] + [1] * (seats - 1)
    return new_game(
        "dice",
        seats,
        seed=b"test",
        options=options,
        rng=ScriptedRNG(rolloff + list(dice)),
        start_ms=start_ms,
    )


def roll(g, seat, hold=(), t=None):
    return g.apply(seat, {"type": "roll", "hold": list(hold)}, g.now if t is None else t)


def put(g, seat, box, t=None, **extra):
    return g.apply(seat, {"type": "score", "box": box, **extra}, g.now if t is None else t)


def fill(g, seat, boxes, points=0):
    """Test set-up: write `points` into `boxes` of a card directly."""
    for box in boxes:
        g.cards[seat][box] = points


# ---- a turn [D1] -------------------------------------------------------------------------------


def test_d1_first_roll_then_stop_and_score():
    g = game(dice=[3, 4, 4, 6, 4])
    notes = roll(g, 0)
    assert notes == [{"type": "rolled", "seat": 0, "dice": [3, 4, 4, 6, 4], "roll": 1, "held": []}]
    notes = put(g, 0, "fours")
    assert notes[0] == {
        "type": "scored",
        "seat": 0,
        "box": "fours",
        "points": 12,
        "dice": [3, 4, 4, 6, 4],
        "joker": False,
    }
    assert notes[1] == {"type": "turn", "seat": 1}
    assert g.cards[0]["fours"] == 12 and g.current == 1


def test_d1_any_open_box_may_be_scratched_for_zero():
    g = game(dice=[1, 2, 3, 4, 6])
    roll(g, 0)
    notes = put(g, 0, "full_house")
    assert notes[0]["points"] == 0 and g.cards[0]["full_house"] == 0


def test_d1_scratch_is_allowed_even_with_yarborough_open():
    # Seed 002's "Yarborough if nothing fits" is only a special case: Kismet may be scratched.
    g = game(dice=[1, 2, 3, 4, 6])
    roll(g, 0)
    put(g, 0, "kismet")
    assert g.cards[0]["kismet"] == 0 and g.cards[0]["yarborough"] is None


def test_d1_three_rolls_at_most_then_a_box():
    g = game(dice=[1, 2, 3, 4, 6, 5, 5, 5, 5, 5])
    roll(g, 0)
    roll(g, 0, hold=[1, 2, 3])
    roll(g, 0, hold=[0, 1, 2, 3])
    refused(
        g, 0, {"type": "roll", "hold": [0]}, "You have already rolled three times; choose a box."
    )
    assert g.legal_actions(0) == [{"type": "score", "box": b} for b in BOXES]


def test_d1_held_dice_keep_their_places_and_the_rest_are_drawn_in_order():
    g = game(dice=[1, 2, 3, 4, 5, 6, 6, 6])
    roll(g, 0)
    notes = roll(g, 0, hold=[3, 1])
    assert notes == [
        {"type": "rolled", "seat": 0, "dice": [6, 2, 6, 4, 6], "roll": 2, "held": [1, 3]}
    ]


@pytest.mark.parametrize(
    "hold,words",
    [
        ([0, 1, 2, 3, 4], "Holding all five dice is the same as stopping: choose a box."),
        ([0, 0], "Each die can be held only once."),
        # (the declaration's words: a hold the wire refuses never reaches the engine)
        ([5], "'hold' is a list of at most five dice positions, 0 to 4."),
        ([True], "'hold' is a list of at most five dice positions, 0 to 4."),
        ("01", "'hold' is a list"),
    ],
)
def test_bad_holds_are_refused(hold, words):
    g = game(dice=[1, 2, 3, 4, 5])
    roll(g, 0)
    refused(g, 0, {"type": "roll", "hold": hold}, words)


def test_nothing_to_hold_before_the_first_roll():
    g = game()
    refused(g, 0, {"type": "roll", "hold": [0]}, "There is nothing to hold before the first roll.")


def test_roll_before_choosing_a_box():
    g = game()
    refused(g, 0, {"type": "score", "box": "aces"}, "Roll the dice before you choose a box.")


def test_a_filled_box_is_refused_by_name():
    g = game(dice=[2, 2, 2, 6, 6, 1, 1, 1, 1, 2, 2, 2, 2, 6, 6])
    roll(g, 0)
    put(g, 0, "full_house")
    roll(g, 1)
    put(g, 1, "aces")
    roll(g, 0)
    refused(
        g, 0, {"type": "score", "box": "full_house"}, "Full House is already filled on your card."
    )


def test_out_of_turn_unknown_box_unknown_action_and_host_refusals():
    g = game(dice=[1, 2, 3, 4, 5])
    refused(g, 1, {"type": "roll"}, "Not your turn: seat 0 is rolling.")
    roll(g, 0)
    refused(g, 1, {"type": "score", "box": "aces"}, "Not your turn: seat 0 is rolling.")
    refused(g, 0, {"type": "score", "box": "chance"}, "There is no box called 'chance'")
    refused(g, 0, {"type": "score"}, "Say which box to score: its name on the card, like 'aces'.")
    refused(g, 0, {"type": "knock"}, "There is no action called 'knock'")
    refused(g, 0, {"type": "timeout"}, "Only the host stamps")
    refused(g, 0, {"type": "away", "seat": 1}, "Only the host stamps")
    refused(g, HOST, {"type": "roll"}, "The host does not play.")
    refused(g, 2, {"type": "roll"}, "There is no seat 2")
    # Every turn has a limit by default [D31] (60 s): not passed yet.
    refused(g, HOST, {"type": "timeout"}, "Too early: the deadline has not passed yet.")
    unlimited = game(dice=[1, 2, 3, 4, 5], options={"turn_limit_ms": 0})
    refused(unlimited, HOST, {"type": "timeout"}, "Nothing is waiting on a deadline.")


def test_legal_actions_follow_the_turn():
    g = game(dice=[1, 2, 3, 4, 5] * 3)
    assert g.legal_actions(0) == [{"type": "roll", "hold": []}]
    assert g.legal_actions(1) == []
    assert g.legal_actions(HOST) == [{"type": "away", "seat": 0}, {"type": "away", "seat": 1}]
    roll(g, 0)
    actions = g.legal_actions(0)
    holds = [a["hold"] for a in actions if a["type"] == "roll"]
    assert len(holds) == 31 and len({tuple(h) for h in holds}) == 31
    assert all(h == sorted(h) and len(h) < 5 for h in holds)
    assert [a["box"] for a in actions if a["type"] == "score"] == list(BOXES)
    put(g, 0, "aces")
    roll(g, 1)
    assert "aces" in [a["box"] for a in g.legal_actions(1) if a["type"] == "score"]
    put(g, 1, "sixes")
    roll(g, 0)
    assert "aces" not in [a["box"] for a in g.legal_actions(0) if a["type"] == "score"]


# ---- the second Kismet [D4] [D5] -------------------------------------------------------------


def two_seats_with_a_kismet(next_dice):
    """Seat 0 scores a real Kismet (80), seat 1 scores Aces; seat 0 then rolls `next_dice`."""
    g = game(dice=KISMET_66666 + [1, 2, 3, 4, 5] + list(next_dice))
    roll(g, 0)
    put(g, 0, "kismet")
    roll(g, 1)
    put(g, 1, "aces")
    roll(g, 0)
    return g


def test_d4_d5_second_kismet_is_a_joker_penalises_others_and_gives_an_extra_turn():
    g = game(seats=3, dice=KISMET_66666 + [1, 2, 3, 4, 5] + [6, 5, 4, 3, 1] + [3] * 5)
    roll(g, 0)
    put(g, 0, "kismet")
    roll(g, 1)
    put(g, 1, "aces")
    roll(g, 2)
    put(g, 2, "sixes")
    roll(g, 0)
    view = g.view(0)
    assert view["joker"] is True
    assert view["preview"]["full_house"] == {"points": 30, "legal": True, "joker": True}
    assert view["preview"]["straight"] == {"points": 0, "legal": True, "joker": False}
    assert view["preview"]["kismet"]["legal"] is False
    notes = put(g, 0, "full_house", t=500)
    assert notes == [
        {
            "type": "scored",
            "seat": 0,
            "box": "full_house",
            "points": 30,
            "dice": [3] * 5,
            "joker": True,
        },
        {"type": "penalty", "seat": 0, "victims": [[1, "deuces"], [2, "aces"]]},
        {"type": "extra_turn", "seat": 0},
        {"type": "turn", "seat": 0},
    ]
    assert g.cards[1]["deuces"] == 0 and g.cards[2]["aces"] == 0
    assert g.current == 0 and g.rolls == 0 and g.turn_start == 500
    # After the extra turn, play goes on in seat order.
    g.rng.push(1, 2, 3, 4, 6)
    roll(g, 0)
    assert put(g, 0, "yarborough")[-1] == {"type": "turn", "seat": 1}


@pytest.mark.parametrize(
    "box,points",
    [
        ("flush", 35),
        ("full_house_same_color", 40),
        ("four_of_a_kind", 45),
        ("two_pair_same_color", 20),
        ("three_of_a_kind", 20),
        ("yarborough", 20),
        ("fours", 20),
    ],
)
def test_d5_joker_scores_each_box_as_the_box_specifies(box, points):
    g = two_seats_with_a_kismet([4] * 5)
    notes = put(g, 0, box)
    assert notes[0]["points"] == points and notes[0]["joker"] is True
    assert notes[1]["type"] == "penalty"


@pytest.mark.parametrize(
    "box,words",
    [
        ("straight", "A joker cannot be scored as a Straight."),
        ("aces", "A joker of 2s goes in Deuces or the Kismet section, not in Aces."),
    ],
)
def test_d5_joker_cannot_be_scored_as_a_straight_or_another_number_but_may_scratch_it(box, words):
    g = two_seats_with_a_kismet([2] * 5)
    refused(g, 0, {"type": "score", "box": box, "joker": True}, words)
    notes = put(g, 0, box)
    assert notes[0]["points"] == 0 and notes[0]["joker"] is False
    # A scratch still ends the turn with a second Kismet: the penalty and extra turn apply.
    assert notes[1] == {"type": "penalty", "seat": 0, "victims": [[1, "deuces"]]}
    assert notes[2] == {"type": "extra_turn", "seat": 0}


def test_d5_asking_for_a_joker_without_one_is_refused():
    g = game(dice=[5] * 5)
    roll(g, 0)
    refused(
        g, 0, {"type": "score", "box": "full_house", "joker": True}, "These dice are not a joker"
    )
    refused(g, 0, {"type": "score", "box": "flush", "joker": "yes"}, "'joker' is true or false.")


def test_d4_first_kismet_has_no_penalty():
    g = game(dice=KISMET_66666)
    roll(g, 0)
    assert g.view(0)["joker"] is False
    notes = put(g, 0, "kismet")
    assert [n["type"] for n in notes] == ["scored", "turn"] and g.current == 1


def test_d4_five_of_a_kind_without_the_kismet_box_filled_is_no_joker():
    g = game(dice=KISMET_66666)
    roll(g, 0)
    notes = put(g, 0, "full_house")  # [D3]: not a natural full house, and no joker yet
    assert notes[0]["points"] == 0 and [n["type"] for n in notes] == ["scored", "turn"]


def test_d4_a_scratched_kismet_box_gives_no_joker_and_no_penalty():
    g = game(dice=[1, 2, 3, 4, 6] + [1, 2, 3, 4, 6] + [5] * 5)
    roll(g, 0)
    put(g, 0, "kismet")  # scratched: 0
    roll(g, 1)
    put(g, 1, "aces")
    roll(g, 0)
    assert g.view(0)["joker"] is False and g.view(0)["holds_kismet"] == [False, False]
    notes = put(g, 0, "full_house")
    assert notes[0]["points"] == 0
    assert [n["type"] for n in notes] == ["scored", "turn"] and g.current == 1


def test_d5_every_later_kismet_penalises_again():
    g = two_seats_with_a_kismet([4] * 5 + [1] * 5)
    put(g, 0, "four_of_a_kind")
    roll(g, 0)
    notes = put(g, 0, "aces")
    assert notes[0] == {
        "type": "scored",
        "seat": 0,
        "box": "aces",
        "points": 5,
        "dice": [1] * 5,
        "joker": True,
    }
    assert notes[1] == {"type": "penalty", "seat": 0, "victims": [[1, "treys"]]}
    assert g.cards[1]["deuces"] == 0 and g.current == 0


def test_d5_penalty_goes_to_the_kismet_section_when_basic_is_full_and_skips_full_cards():
    g = game(seats=3, dice=KISMET_66666 + [2] * 10)
    roll(g, 0)
    put(g, 0, "kismet")
    fill(g, 1, BASIC_BOXES + ("two_pair_same_color",), 3)
    fill(g, 2, BOXES, 1)  # seat 2's card is full: it is skipped and cannot be penalised
    roll(g, 1)
    put(g, 1, "yarborough")
    assert g.current == 0  # seat 2 skipped
    roll(g, 0)
    notes = put(g, 0, "deuces")
    assert notes[1] == {"type": "penalty", "seat": 0, "victims": [[1, "three_of_a_kind"]]}
    assert g.cards[1]["three_of_a_kind"] == 0


def test_d5_no_extra_turn_when_the_rollers_card_is_full():
    g = game(seats=2, dice=KISMET_66666 + [1, 2, 3, 4, 6] + [3] * 5)
    roll(g, 0)
    put(g, 0, "kismet")
    roll(g, 1)
    put(g, 1, "aces")
    fill(g, 0, [b for b in BOXES if b not in ("kismet", "treys")], 0)
    roll(g, 0)
    notes = put(g, 0, "treys")
    assert [n["type"] for n in notes] == ["scored", "penalty", "turn"]
    assert notes[-1] == {"type": "turn", "seat": 1}


def test_d5_solo_second_kismet_has_no_victims_and_plays_on():
    g = game(seats=1, dice=KISMET_66666 + [6] * 5)
    roll(g, 0)
    put(g, 0, "kismet")
    roll(g, 0)
    notes = put(g, 0, "sixes")
    assert notes[1:] == [
        {"type": "penalty", "seat": 0, "victims": []},
        {"type": "extra_turn", "seat": 0},
        {"type": "turn", "seat": 0},
    ]


# ---- the roll-off [D6], order and end ----------------------------------------------------------


def test_d6_highest_die_starts():
    g = new_game("dice", 3, seed=b"x", rng=ScriptedRNG([2, 5, 4]))
    assert g.current == 1 and g.first == 1
    assert g.view(None)["rolloff"] == {"rounds": [[[0, 2], [1, 5], [2, 4]]], "first": 1}


def test_d6_tied_players_roll_again_among_themselves_in_seat_order():
    g = new_game("dice", 4, seed=b"x", rng=ScriptedRNG([5, 2, 5, 5, 4, 4, 1, 6, 3]))
    assert g.rolloff == [
        [[0, 5], [1, 2], [2, 5], [3, 5]],
        [[0, 4], [2, 4], [3, 1]],
        [[0, 6], [2, 3]],
    ]
    assert g.current == 0
    # The roll-off used exactly those nine dice; the first turn's roll is the next one.
    g.rng.push(1, 1, 2, 2, 3)
    assert roll(g, 0)[0]["dice"] == [1, 1, 2, 2, 3]


def test_d6_solo_game_draws_nothing_for_the_roll_off():
    g = new_game("dice", 1, seed=b"solo")
    assert g.rolloff == [] and g.current == 0 and g.rng.bytes_used == 0


def test_d6_roll_off_is_the_first_draw_of_the_seeded_stream():
    from kismet_tui.rules import SeededRNG

    stream = SeededRNG(b"order")
    faces = [stream.die() for _ in range(3)]
    g = new_game("dice", 3, seed=b"order")
    assert [face for _, face in g.rolloff[0]] == faces


def test_seat_order_goes_round_and_skips_full_cards():
    g = game(seats=3, dice=[1, 2, 3, 4, 6] * 4)
    fill(g, 1, BOXES, 0)
    order = []
    for _ in range(4):
        seat = g.current
        order.append(seat)
        roll(g, seat)
        put(g, seat, next(b for b in BOXES if g.cards[seat][b] is None))
    assert order == [0, 2, 0, 2]


HAND_CHECKED_SOLO = [
    ([1, 1, 1, 2, 3], "aces", 3),
    ([2, 2, 2, 1, 3], "deuces", 6),
    ([3, 3, 3, 1, 2], "treys", 9),
    ([4, 4, 4, 1, 2], "fours", 12),
    ([5, 5, 5, 1, 2], "fives", 15),
    ([6, 6, 6, 1, 2], "sixes", 18),
    ([1, 1, 6, 6, 3], "two_pair_same_color", 17),
    ([2, 2, 2, 5, 6], "three_of_a_kind", 17),
    ([1, 2, 3, 4, 5], "straight", 30),
    ([2, 2, 5, 5, 5], "flush", 35),
    ([2, 2, 2, 6, 6], "full_house", 33),
    ([3, 3, 4, 4, 4], "full_house_same_color", 38),
    ([6, 6, 6, 6, 1], "four_of_a_kind", 50),
    ([1, 2, 4, 5, 6], "yarborough", 18),
    ([6, 6, 6, 6, 6], "kismet", 80),
]


def test_a_whole_solo_game_totals_basic_bonus_and_kismet_section():
    g = game(seats=1, dice=[face for dice, _, _ in HAND_CHECKED_SOLO for face in dice])
    for dice, box, points in HAND_CHECKED_SOLO:
        assert roll(g, 0)[0]["dice"] == dice
        notes = put(g, 0, box)
        assert notes[0]["points"] == points
    # Basic 63 -> bonus 35; Kismet section 318; total 416.
    assert notes[-1] == {"type": "game_over", "scores": [416], "winners": [0]}
    assert g.result() == {
        "scores": [416],
        "winners": [0],
        "basic": [63],
        "bonus": [35],
        "kismet_section": [318],
    }
    assert g.finished and g.next_deadline() is None and g.legal_actions(0) == []
    refused(g, 0, {"type": "roll"}, "The game is over.")
    view = g.view(0)
    assert view["phase"] == "over" and view["current"] is None and view["result"] == g.result()


def test_equal_totals_share_the_win():
    g = game(seats=3, dice=[1, 2, 3, 4, 5] * 3)
    for seat in range(3):
        fill(g, seat, [b for b in BOXES if b != "yarborough"], 0)
    for seat in range(3):
        roll(g, seat)
        notes = put(g, seat, "yarborough")
    assert notes[-1] == {"type": "game_over", "scores": [15, 15, 15], "winners": [0, 1, 2]}


def test_the_bonus_shows_as_soon_as_it_is_reached():
    g = game(seats=1, dice=[6, 6, 6, 6, 6])
    fill(g, 0, ["aces", "deuces", "treys", "fours", "fives"], 11)  # 55
    assert g.view(0)["totals"][0] == {"basic": 55, "bonus": 0, "kismet_section": 0, "total": 55}
    roll(g, 0)
    put(g, 0, "sixes")
    assert g.view(0)["totals"][0] == {"basic": 85, "bonus": 75, "kismet_section": 0, "total": 160}


# ---- away and turn limits [D18] ----------------------------------------------------------------


def test_d18_away_player_is_played_for_after_the_away_limit():
    g = game(dice=[6, 6, 6, 5, 4])
    g.apply(HOST, {"type": "away", "seat": 0}, 1000)
    assert g.next_deadline() == 31000
    refused(g, HOST, {"type": "timeout"}, "Too early: the deadline has not passed yet.", t=30999)
    notes = g.apply(HOST, {"type": "timeout"}, 31000)
    # 3 of a Kind and Yarborough both score 27: the first in scorecard order wins the tie.
    assert notes == [
        {"type": "timeout", "seat": 0, "why": "away_limit", "limit_ms": 30000},
        {"type": "rolled", "seat": 0, "dice": [6, 6, 6, 5, 4], "roll": 1, "held": []},
        {
            "type": "scored",
            "seat": 0,
            "box": "three_of_a_kind",
            "points": 27,
            "dice": [6, 6, 6, 5, 4],
            "joker": False,
        },
        {"type": "turn", "seat": 1},
    ]
    assert g.next_deadline() == 31000 + 60000  # seat 1 is here: only the turn limit [D31]


def test_d18_an_away_seat_plays_only_once_the_host_stamps_it_back():
    g = game(dice=[1, 2, 3, 4, 6])
    g.apply(HOST, {"type": "away", "seat": 0}, 10)
    assert g.legal_actions(0) == []
    deadline = g.next_deadline()
    marks = [{"type": "back", "seat": 0}, {"type": "away", "seat": 1}]
    assert g.legal_actions(HOST) == g.legal_actions(HOST, deadline - 1) == marks
    assert g.legal_actions(HOST, deadline) == [{"type": "timeout"}] + marks
    refused(g, 0, {"type": "roll"}, "Seat 0 is marked away: come back to play.")
    g.apply(HOST, {"type": "back", "seat": 0}, 20)
    assert g.legal_actions(HOST, deadline) == [
        {"type": "away", "seat": 0},
        {"type": "away", "seat": 1},
    ]
    assert roll(g, 0)[0]["dice"] == [1, 2, 3, 4, 6]


def test_d18_a_player_who_rolled_is_not_rolled_for_again():
    g = game(dice=[1, 2, 3, 4, 6, 5])
    roll(g, 0, t=100)
    roll(g, 0, hold=[0, 1, 2, 3], t=200)
    g.apply(HOST, {"type": "away", "seat": 0}, 300)
    notes = g.apply(HOST, {"type": "timeout"}, 30300)
    assert [n["type"] for n in notes] == ["timeout", "scored", "turn"]
    assert notes[1]["box"] == "straight" and notes[1]["points"] == 30


def test_d18_default_play_includes_the_joker():
    g = two_seats_with_a_kismet([4] * 5)
    g.apply(HOST, {"type": "away", "seat": 0}, 10)
    notes = g.apply(HOST, {"type": "timeout"}, 30010)
    assert notes[1] == {
        "type": "scored",
        "seat": 0,
        "box": "four_of_a_kind",
        "points": 45,
        "dice": [4] * 5,
        "joker": True,
    }
    assert notes[2]["type"] == "penalty" and notes[3]["type"] == "extra_turn"
    # Still away on the extra turn: a new away-limit from the turn's start.
    assert g.next_deadline() == 30010 + 30000


def test_d18_away_limit_counts_from_the_later_of_turn_start_and_going_away():
    g = game(dice=[1, 2, 3, 4, 6], options={"turn_limit_ms": 0})
    g.apply(HOST, {"type": "away", "seat": 1}, 100)
    assert g.next_deadline() is None  # seat 0 moves and is here
    roll(g, 0, t=2000)
    put(g, 0, "aces", t=5000)
    assert g.next_deadline() == 35000
    g.apply(HOST, {"type": "back", "seat": 1}, 6000)
    assert g.next_deadline() is None
    g.apply(HOST, {"type": "away", "seat": 1}, 9000)
    assert g.next_deadline() == 39000


def test_d18_turn_limit_for_everybody():
    g = game(
        dice=[1, 2, 3, 4, 6] * 2,
        options={"turn_limit_ms": 10000, "away_limit_ms": 4000},
        start_ms=500,
    )
    assert g.next_deadline() == 10500
    g.apply(HOST, {"type": "away", "seat": 0}, 600)
    assert g.next_deadline() == 4600  # the earlier of the two limits
    notes = g.apply(HOST, {"type": "timeout"}, 4600)
    assert notes[2]["box"] == "yarborough" and g.current == 1
    assert g.next_deadline() == 14600
    refused(g, HOST, {"type": "timeout"}, "Too early", t=14599)
    assert g.apply(HOST, {"type": "timeout"}, 14600)[0] == {
        "type": "timeout",
        "seat": 1,
        "why": "turn_limit",
        "limit_ms": 10000,
    }


def test_options_defaults_and_refusals():
    assert normalize_options({}) == {"away_limit_ms": 30000, "turn_limit_ms": 60000}  # [D31]
    assert normalize_options({"turn_limit_ms": 0})["turn_limit_ms"] == 0
    for bad, words in [
        ({"speed": 1}, "no option called speed"),
        ({"away_limit_ms": -1}, "between 0 and"),
        ({"away_limit_ms": 1.5}, "whole number"),
        ({"turn_limit_ms": 50}, "at least 1000"),
    ]:
        with pytest.raises(IllegalAction, match=words):
            normalize_options(bad)


# ---- view and state ----------------------------------------------------------------------------


def test_view_has_what_a_screen_needs():
    g = game(dice=[2, 2, 5, 5, 5])
    view = g.view(1)
    assert view["you"] == 1 and view["your_turn"] is False and view["current"] == 0
    assert view["dice"] == [] and view["preview"] is None and view["rolls_left"] == 3
    assert view["can_roll"] and not view["can_score"]
    assert view["cards"] == [{b: None for b in BOXES}] * 2
    roll(g, 0)
    view = g.view(None)
    assert view["you"] is None and view["dice"] == [2, 2, 5, 5, 5] and view["rolls_used"] == 1
    assert view["preview"]["flush"] == {"points": 35, "legal": True, "joker": False}
    assert view["preview"]["full_house_same_color"]["points"] == 39
    put(g, 0, "full_house_same_color")
    view = g.view(0)
    assert view["last"] == {
        "seat": 0,
        "box": "full_house_same_color",
        "points": 39,
        "dice": [2, 2, 5, 5, 5],
        "joker": False,
    }
    assert view["totals"][0]["kismet_section"] == 39 and view["turn"] == 2


def test_snapshot_holds_the_rng_position_so_the_digest_sees_every_draw():
    a, b = game(dice=[1, 2, 3, 4, 5]), game(dice=[1, 2, 3, 4, 5])
    assert a.digest() == b.digest()
    assert a.snapshot()["rng"] == a.rng.state()
    b.rng.die()  # same game, different position in the stream
    assert a.digest() != b.digest()
