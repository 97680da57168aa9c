"""The knocking variant (docs/rules.md section 4, [D13]-[D18]) with scripted dice and arranged hands.

Seats in the rulebook's example: Andreas 0, Britta 1, Christian 2, Doris 3, Ernst 4.
"""

import pytest

from kismet_tui.rules import HOST, IllegalAction, ScriptedRNG, SeededRNG, new_game, replay
from kismet_tui.rules.knock import normalize_options, prelay_commitment
from tests.rules_util import refused, seed_for_first_roller

TIMEOUT = {"type": "timeout"}
ALL = list(range(2, 13))
SALT = "5a17"


def game(seats=2, dice=(), options=None, first=0, prelays=None, start_ms=0):
    """A game in play: every seat has committed and revealed its pre-lay (default: none),
    and `first` rolls first."""
    g = new_game(
        "knock",
        seats,
        seed=b"unused",
        options=options,
        start_ms=start_ms,
        rng=ScriptedRNG(list(dice), seed=seed_for_first_roller(seats, first)),
    )
    prelays = prelays or [[] for _ in range(seats)]
    for s in range(seats):
        g.apply(s, {"type": "prelay", "commit": prelay_commitment(prelays[s], SALT)}, start_ms)
    for s in range(seats):
        g.apply(s, {"type": "reveal", "cards": prelays[s], "salt": SALT}, start_ms)
    assert g.phase == "play" and g.turn == first
    return g


def arrange(g, seat, open_numbers, laid_numbers):
    """Test set-up: a seat's open cards and laid pile (bottom to top); together its 11."""
    assert sorted(open_numbers + laid_numbers) == ALL
    g.open[seat] = sorted(open_numbers)
    g.laid[seat] = list(laid_numbers)


def rest(open_numbers, top=None):
    """A laid pile holding every card not open, with `top` on top."""
    pile = [n for n in ALL if n not in open_numbers and n != top]
    return pile + ([top] if top is not None else [])


def act(g, seat, action, t=None):
    return g.apply(seat, action, g.now if t is None else t)


def knock(g, seat, card=None, t=None):
    action = {"type": "knock"} if card is None else {"type": "knock", "card": card}
    notes = act(g, seat, action, t)
    return notes[0]


# ---- options -----------------------------------------------------------------------------------


def test_options_have_defaults_and_refuse_nonsense():
    assert normalize_options({}) == {
        "knock_window_ms": 1500,
        "away_limit_ms": 30_000,
        "turn_limit_ms": 30_000,
        "rounds": 1,  # [D31]
        "chips": [6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6],
    }
    with pytest.raises(IllegalAction, match="no option called countdown_ms"):
        normalize_options({"countdown_ms": 3000})
    with pytest.raises(IllegalAction, match="number of rounds"):
        normalize_options({"rounds": 0})


# ---- [D13] the secret pre-lay -------------------------------------------------------------------


def test_d13_prelay_is_committed_then_revealed_and_takes_effect_together():
    g = new_game("knock", 2, seed=b"d13")
    assert g.phase == "prelay_commit" and g.next_deadline() == 30_000
    commit = prelay_commitment([7, 6], SALT)
    notes = act(g, 0, {"type": "prelay", "commit": commit}, 100)
    assert notes == [{"type": "committed", "seat": 0}]
    # Only the commitment is in the log: nothing of the choice shows.
    assert g.view(1)["players"][0]["committed"] and g.view(1)["players"][0]["laid_count"] == 0
    refused(g, 0, {"type": "prelay", "commit": commit}, "already committed")
    refused(g, 0, {"type": "reveal", "cards": [7, 6], "salt": SALT}, "not the time to reveal")
    act(g, 1, {"type": "prelay", "commit": prelay_commitment([], "ff")}, 200)
    assert g.phase == "prelay_reveal" and g.next_deadline() == 30_200
    act(g, 0, {"type": "reveal", "cards": [7, 6], "salt": SALT}, 300)
    assert g.laid[0] == [] and g.open[0] == ALL  # not yet: the choices take effect together
    notes = act(g, 1, {"type": "reveal", "cards": [], "salt": "ff"}, 400)
    assert notes[0] == {"type": "revealed", "seat": 1, "count": 0}
    assert notes[1]["type"] == "prelays_done"
    assert g.laid[0] == [7, 6] and g.open[0] == [2, 3, 4, 5, 8, 9, 10, 11, 12]  # 6 on top
    assert g.view(0)["players"][0]["laid"] == [7, 6]
    assert g.view(1)["players"][0]["laid"] is None  # face down: the order is the owner's


def test_d13_reveals_that_do_not_match_or_break_the_rules_are_refused():
    g = new_game("knock", 2, seed=b"d13")
    too_many = [2, 7]  # 6 + 1 = 7 chips
    act(g, 0, {"type": "prelay", "commit": prelay_commitment(too_many, SALT)}, 0)
    act(g, 1, {"type": "prelay", "commit": prelay_commitment([3, 3], SALT)}, 0)
    refused(g, 0, {"type": "reveal", "cards": [2], "salt": SALT}, "not what you committed to")
    refused(g, 0, {"type": "reveal", "cards": too_many, "salt": "5a18"}, "not what you committed")
    refused(g, 0, {"type": "reveal", "cards": too_many, "salt": SALT}, "add up to 7 chips")
    refused(g, 1, {"type": "reveal", "cards": [3, 3], "salt": SALT}, "at most once")
    refused(g, 1, {"type": "reveal", "cards": [3, 3], "salt": "not hex"}, "hex string")
    refused(g, 1, {"type": "prelay", "commit": "ab" * 32}, "time to choose a pre-lay is over")
    # Neither can ever reveal: at the deadline both keep an empty pre-lay.
    notes = act(g, HOST, TIMEOUT, 30_000)
    assert notes[:2] == [
        {"type": "prelay_defaulted", "seat": 0, "limit_ms": 30_000},
        {"type": "prelay_defaulted", "seat": 1, "limit_ms": 30_000},
    ]
    assert g.phase == "play" and g.laid == [[], []]


def test_d13_a_bad_commitment_is_refused():
    g = new_game("knock", 2, seed=b"d13")
    refused(g, 0, {"type": "prelay", "commit": "xyz"}, "64 lowercase hex digits")
    refused(g, 0, {"type": "prelay"}, "64 lowercase hex digits")


def test_d13_whoever_has_not_committed_by_the_away_limit_gets_an_empty_prelay():
    g = new_game("knock", 3, seed=b"d13", options={"away_limit_ms": 5000}, start_ms=1000)
    act(g, 1, {"type": "prelay", "commit": prelay_commitment([12], SALT)}, 2000)
    refused(g, HOST, TIMEOUT, "Too early", t=5999)
    notes = act(g, HOST, TIMEOUT, 6000)
    assert notes == [
        {"type": "prelay_defaulted", "seat": 0, "limit_ms": 5000},
        {"type": "prelay_defaulted", "seat": 2, "limit_ms": 5000},
    ]
    assert g.phase == "prelay_reveal" and g.next_deadline() == 11_000
    refused(g, 0, {"type": "reveal", "cards": [], "salt": SALT}, "Time ran out")
    act(g, 1, {"type": "reveal", "cards": [12], "salt": SALT}, 7000)
    assert g.phase == "play" and g.laid == [[], [12], []]


def test_d13_a_commitment_is_sha256_of_the_canonical_choice():
    import hashlib

    expected = hashlib.sha256(b'{"cards":[7,6],"salt":"5a17"}').hexdigest()
    assert prelay_commitment([7, 6], SALT) == expected
    assert prelay_commitment([6, 7], SALT) != expected  # the order is part of the choice


def test_d13_legal_actions_offer_public_prelays_that_reveal():
    g = new_game("knock", 2, seed=b"d13")
    offers = g.legal_actions(0)
    assert offers and all(a["type"] == "prelay" for a in offers)
    for s in range(2):
        act(g, s, offers[-1], 0)
    (reveal,) = g.legal_actions(0)
    act(g, 0, reveal, 0)
    act(g, 1, g.legal_actions(1)[0], 0)
    assert g.phase == "play"


# ---- [D14] the first roller, turn order ---------------------------------------------------------


def test_d14_the_first_roller_is_the_seeds_first_draw_and_turns_go_round():
    for seed in (b"a", b"b", b"c", b"d"):
        g = new_game("knock", 4, seed=seed, options={"knock_window_ms": 0})
        act(g, HOST, TIMEOUT, 30_000)  # everybody: empty pre-lay
        assert g.first_roller == SeededRNG(seed).below(4) == g.turn
        first = g.turn
        act(g, first, {"type": "roll"})
        act(g, first, {"type": "pass"})
        assert g.turn == (first + 1) % 4 and g.stage == "roll"


def test_d14_not_your_turn_is_refused():
    g = game(seats=3, dice=[1, 2, 3], first=1)
    refused(g, 0, {"type": "roll"}, "Not your turn: seat 1 is rolling.")
    act(g, 1, {"type": "roll"})
    refused(g, 2, {"type": "lay", "card": 3}, "Not your turn: seat 1 is deciding.")
    refused(g, 1, {"type": "roll"}, "You have rolled already")


# ---- a turn: roll, lay, pass, joker -------------------------------------------------------------


def test_lay_one_matching_card_only():
    g = game(dice=[2, 3, 5])  # targets 5, 7, 8
    notes = act(g, 0, {"type": "roll"})
    assert notes == [
        {
            "type": "rolled",
            "seat": 0,
            "roll": 1,
            "dice": [2, 3, 5],
            "targets": [5, 7, 8],
            "joker": False,
        }
    ]
    refused(
        g,
        0,
        {"type": "lay", "card": 6},
        "Your 6 does not match this roll: the dice make 5, 7 and 8.",
    )
    refused(g, 0, {"type": "lay", "card": 7, "extra": 8}, "Only a joker throw")
    notes = act(g, 0, {"type": "lay", "card": 8})
    assert notes[0] == {"type": "laid", "seat": 0, "cards": [8]}
    assert g.laid[0] == [8] and 8 not in g.open[0] and g.turn == 1


def test_roll_before_lay_and_no_card_you_lack():
    g = game(dice=[2, 3, 5])
    refused(g, 0, {"type": "lay", "card": 5}, "Roll the dice first.")
    arrange(g, 0, [2, 3], rest([2, 3]))
    act(g, 0, {"type": "roll"})
    refused(g, 0, {"type": "lay", "card": 5}, "You have no open 5.")
    refused(g, 0, {"type": "lay", "card": "5"}, "its number, 2 to 12")


def test_joker_throw_lays_the_match_and_any_other_card():
    g = game(dice=[2, 2, 2])  # target 4 only
    act(g, 0, {"type": "roll"})
    lays = [a for a in g.legal_actions(0) if a["type"] == "lay"]
    assert {"type": "lay", "card": 4} in lays and {"type": "lay", "card": 4, "extra": 12} in lays
    refused(g, 0, {"type": "lay", "card": 4, "extra": 4}, "another of your open cards")
    notes = act(g, 0, {"type": "lay", "card": 4, "extra": 12})
    assert notes[0] == {"type": "laid", "seat": 0, "cards": [4, 12]}
    assert g.laid[0] == [4, 12]


def test_joker_throw_without_the_match_lays_nothing():
    g = game(dice=[2, 2, 2])
    arrange(g, 0, [3, 5, 12], rest([3, 5, 12]))
    act(g, 0, {"type": "roll"})
    refused(g, 0, {"type": "lay", "card": 12}, "does not match")
    assert g.legal_actions(0) == [{"type": "pass"}]


# ---- [D15] the knock window ----------------------------------------------------------------------


def test_d15_the_next_roll_waits_for_the_knock_window():
    g = game(seats=3, dice=[1, 2, 3, 6, 6, 6])
    act(g, 0, {"type": "roll"}, 1000)
    notes = act(g, 0, {"type": "pass"}, 2000)
    assert notes[-1] == {"type": "turn", "seat": 1, "roll_from": 3500}
    assert g.view(2)["roll_from"] == 3500
    refused(g, 1, {"type": "roll"}, "Wait: others may still knock for 0.6 s.", t=2900)
    refused(g, 1, {"type": "roll"}, "Wait: others may still knock for 0.1 s.", t=3499)
    # legal_actions says the same at each moment: no roll before 3500, a roll from then on.
    assert {"type": "roll"} not in g.legal_actions(1)  # asked at the pass, 2000
    assert {"type": "roll"} not in g.legal_actions(1, 3499)
    assert {"type": "roll"} in g.legal_actions(1, 3500)
    assert g.legal_actions(1, 1999) == []  # earlier than the last event: nothing
    # The window does not close by itself: knocks on seat 0's roll count until seat 1 rolls.
    assert knock(g, 2, t=9000)["roll"] == 1
    act(g, 1, {"type": "roll"}, 9100)
    assert g.roll["roller"] == 1 and g.roll["knocked"] == []
    assert knock(g, 2, t=9200)["roll"] == 2  # now a knock is on the new roll


def test_d15_the_window_is_a_table_option():
    g = game(dice=[1, 2, 3], options={"knock_window_ms": 0})
    act(g, 0, {"type": "roll"}, 10)
    act(g, 0, {"type": "pass"}, 10)
    act(g, 1, {"type": "roll"}, 10)
    assert g.roll["roller"] == 1


# ---- knocking: the three cases -------------------------------------------------------------------


def test_knock_case_1_overlooked_first_knocker_lays_later_ones_are_too_slow():
    g = game(seats=4, dice=[2, 3, 5])  # targets 5, 7, 8
    arrange(g, 0, [5, 10], rest([5, 10], top=12))
    arrange(g, 1, [8, 11], rest([8, 11], top=2))
    arrange(g, 2, [7, 9], rest([7, 9], top=3))
    arrange(g, 3, [2, 3], rest([2, 3], top=4))
    act(g, 0, {"type": "roll"})
    act(g, 0, {"type": "pass"})  # overlooked the 5
    good = knock(g, 1)
    assert good == {
        "type": "knocked",
        "roll": 1,
        "seat": 1,
        "case": "overlooked",
        "judgement": "good",
        "laid": 8,
        "turned_up": None,
    }
    late = knock(g, 2)
    assert late["judgement"] == "too_slow" and late["laid"] is None
    late_without_match = knock(g, 3)  # no penalty after an overlooked pass
    assert late_without_match["judgement"] == "too_slow" and late_without_match["turned_up"] is None
    assert g.open[2] == [7, 9] and g.open[3] == [2, 3]


def test_knock_case_1_first_knocker_without_a_match_turns_up_the_rollers_card():
    g = game(seats=3, dice=[2, 3, 5])
    arrange(g, 0, [5, 10], rest([5, 10], top=12))
    arrange(g, 1, [2, 11], rest([2, 11], top=3))
    act(g, 0, {"type": "roll"})
    act(g, 0, {"type": "pass"})
    note = knock(g, 1)
    assert note["case"] == "overlooked" and note["judgement"] == "good"
    assert note["turned_up"] == {"seat": 0, "card": 12}
    assert g.open[0] == [5, 10, 12] and g.open[1] == [2, 11]


def test_knock_case_2_the_roller_still_holds_a_match_so_the_knock_is_wrong():
    g = game(seats=3, dice=[2, 3, 5])
    arrange(g, 1, [5, 6], rest([5, 6], top=9))
    act(g, 0, {"type": "roll"})  # seat 0 holds all of 5, 7, 8
    note = knock(g, 1, card=5)
    assert (note["case"], note["judgement"]) == ("roller_holds", "wrong")
    assert note["turned_up"] == {"seat": 1, "card": 9} and g.open[1] == [5, 6, 9]
    # After laying one card the roller still holds another match: still wrong.
    act(g, 0, {"type": "lay", "card": 8})
    note = knock(g, 2)
    assert (note["case"], note["judgement"], note["turned_up"]) == ("roller_holds", "wrong", None)
    refused(g, 1, {"type": "knock"}, "You have knocked on this roll already.")


def test_knock_case_3_during_the_turn_a_good_knocker_lays_and_the_roller_can_still_pass():
    g = game(seats=2, dice=[2, 3, 5])
    arrange(g, 0, [2, 12], rest([2, 12]))
    act(g, 0, {"type": "roll"})
    note = knock(g, 1, card=7)
    assert (note["case"], note["judgement"], note["laid"]) == ("roller_has_none", "good", 7)
    refused(g, 0, {"type": "knock"}, "You cannot knock on your own roll.")
    act(g, 0, {"type": "pass"})


def test_the_rulebooks_example_card_for_card():
    # Andreas: 2 and 6. Britta: 4 and 11. Christian: 7, 8 and 12. Doris: 12. Ernst: 2 and 9.
    g = game(seats=5, dice=[2, 6, 6], first=0)
    arrange(g, 0, [2, 6], rest([2, 6]))
    arrange(g, 1, [4, 11], rest([4, 11], top=6))  # Britta's last laid card is a 6
    arrange(g, 2, [7, 8, 12], rest([7, 8, 12]))
    arrange(g, 3, [12], rest([12]))
    arrange(g, 4, [2, 9], rest([2, 9], top=10))  # Ernst's is a 10
    notes = act(g, 0, {"type": "roll"}, 1000)
    assert notes[0]["targets"] == [8, 12]  # Andreas has neither
    judged = [knock(g, seat, t=1200 + seat) for seat in (1, 2, 3, 4)]
    assert [(k["seat"], k["judgement"]) for k in judged] == [
        (1, "wrong"),
        (2, "good"),
        (3, "too_slow"),
        (4, "wrong"),
    ]
    assert judged[0]["turned_up"] == {"seat": 1, "card": 6}
    assert judged[3]["turned_up"] == {"seat": 4, "card": 10}
    assert judged[1]["laid"] == 12  # [D16]: no card named, the 12 has most chips
    assert judged[2]["laid"] is None and judged[2]["turned_up"] is None
    assert g.open == [[2, 6], [4, 6, 11], [7, 8], [12], [2, 9, 10]]
    act(g, 0, {"type": "pass"}, 1500)  # correctly: nothing to lay
    view = g.view(3)
    assert [k["seat"] for k in view["roll"]["knocks"]] == [1, 2, 3, 4]


def test_the_rulebooks_example_christian_may_name_his_8():
    g = game(seats=5, dice=[2, 6, 6], first=0)
    arrange(g, 0, [2, 6], rest([2, 6]))
    arrange(g, 2, [7, 8, 12], rest([7, 8, 12]))
    act(g, 0, {"type": "roll"})
    assert knock(g, 2, card=8)["laid"] == 8 and g.open[2] == [7, 12]


def test_a_named_card_must_be_an_open_match():
    g = game(seats=3, dice=[2, 6, 6])
    arrange(g, 1, [4, 11], rest([4, 11]))
    act(g, 0, {"type": "roll"})
    refused(
        g,
        1,
        {"type": "knock", "card": 4},
        "Your 4 does not match this roll: the dice make 8 and 12.",
    )
    refused(g, 1, {"type": "knock", "card": 12}, "You have no open 12.")
    g2 = game(seats=2, dice=[1, 2, 3])
    refused(g2, 1, {"type": "knock"}, "Nothing to knock on: nobody has rolled yet this round.")


def test_d16_default_card_is_most_chips_then_the_higher_number():
    g = game(seats=3, dice=[1, 4, 5])  # targets 5, 6, 9 (chips 3, 2, 3)
    arrange(g, 0, [2, 3], rest([2, 3]))
    arrange(g, 1, [5, 6, 9], rest([5, 6, 9]))
    arrange(g, 2, [5, 6], rest([5, 6]))
    act(g, 0, {"type": "roll"})
    assert knock(g, 1)["laid"] == 9  # 5 and 9 tie on chips: the higher number
    g = game(seats=3, dice=[1, 4, 5])
    arrange(g, 0, [2, 3], rest([2, 3]))
    arrange(g, 2, [5, 6], rest([5, 6]))
    act(g, 0, {"type": "roll"})
    assert knock(g, 2)["laid"] == 5  # 3 chips beat the 6's 2


def test_d17_on_a_joker_throw_the_good_knocker_lays_only_the_match():
    g = game(seats=2, dice=[3, 3, 3])  # target 6
    arrange(g, 0, [2, 12], rest([2, 12]))
    arrange(g, 1, [6, 10, 12], rest([6, 10, 12]))
    act(g, 0, {"type": "roll"})
    assert {"type": "knock", "card": 6} in g.legal_actions(1)
    refused(g, 1, {"type": "knock", "card": 6, "extra": 12}, "A knock has no field 'extra'.")
    note = knock(g, 1)
    assert note["laid"] == 6 and g.open[1] == [10, 12]


def test_a_wrong_knocker_with_an_empty_pile_loses_nothing():
    g = game(seats=2, dice=[2, 3, 5])
    act(g, 0, {"type": "roll"})
    note = knock(g, 1)
    assert note["judgement"] == "wrong" and note["turned_up"] is None
    assert g.open[1] == ALL


# ---- end of a round and of the game --------------------------------------------------------------


def test_laying_the_last_card_wins_the_round_at_once():
    g = game(seats=3, dice=[2, 3, 5])
    arrange(g, 0, [8], rest([8]))
    arrange(g, 1, [2, 12], rest([2, 12]))  # 12 chips
    arrange(g, 2, [7], rest([7]))  # 1 chip
    act(g, 0, {"type": "roll"})
    notes = act(g, 0, {"type": "lay", "card": 8})
    assert notes[1] == {"type": "round_over", "round": 1, "winners": [0], "minus": [0, 12, 1]}
    assert notes[2] == {"type": "game_over", "scores": [0, -12, -1], "winners": [0]}
    assert g.result() == {
        "scores": [0, -12, -1],
        "minus_points": [0, 12, 1],
        "winners": [0],
        "round_scores": [[0, 12, 1]],
    }
    refused(g, 1, {"type": "knock"}, "The game is over.")
    assert g.next_deadline() is None and g.legal_actions(1) == []


def test_a_knocker_who_lays_their_last_card_wins_too():
    g = game(seats=3, dice=[2, 3, 5], options={"rounds": 2})
    arrange(g, 0, [2, 3], rest([2, 3]))
    arrange(g, 2, [7], rest([7]))
    act(g, 0, {"type": "roll"})
    notes = act(g, 2, {"type": "knock"})
    assert notes[1] == {
        "type": "round_over",
        "round": 1,
        "winners": [2],
        "minus": [11, sum([6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6]), 0],
    }
    # Next round: all cards open again, a new secret pre-lay, the next seat rolls first.
    assert g.phase == "prelay_commit" and g.round == 2 and g.open[2] == ALL and g.roll is None
    first_of_round_1 = g.game_first_roller
    act(g, HOST, TIMEOUT, g.next_deadline())
    assert g.first_roller == (first_of_round_1 + 1) % 3


def test_rounds_add_up_and_ties_share():
    g = game(seats=2, dice=[2, 3, 5, 2, 3, 5], options={"rounds": 2, "knock_window_ms": 0})
    arrange(g, 0, [8], rest([8]))
    arrange(g, 1, [7], rest([7]))
    act(g, 0, {"type": "roll"})
    act(g, 0, {"type": "lay", "card": 8})  # round 1: seat 1 scores 1
    act(g, HOST, TIMEOUT, g.next_deadline())
    assert g.turn == 1
    arrange(g, 0, [7], rest([7]))
    arrange(g, 1, [8], rest([8]))
    act(g, 1, {"type": "roll"})
    notes = act(g, 1, {"type": "lay", "card": 8})  # round 2: seat 0 scores 1
    assert notes[-1] == {"type": "game_over", "scores": [-1, -1], "winners": [0, 1]}
    assert g.result()["round_scores"] == [[0, 1], [1, 0]]


# ---- [D18] away players and the turn limit -------------------------------------------------------


def test_d18_an_away_roller_is_played_for_after_the_away_limit():
    g = game(seats=3, dice=[2, 3, 5], options={"away_limit_ms": 5000, "turn_limit_ms": 0})
    assert g.next_deadline() is None  # no turn limit: wait for a present player
    act(g, HOST, {"type": "away", "seat": 0}, 1000)
    assert g.next_deadline() == 6000
    refused(g, 0, {"type": "roll"}, "Seat 0 is marked away")
    notes = act(g, HOST, TIMEOUT, 6000)
    assert notes[0] == {"type": "default_play", "seat": 0, "why": "away_limit", "limit_ms": 5000}
    assert notes[1]["type"] == "rolled"
    assert notes[2] == {"type": "laid", "seat": 0, "cards": [5]}  # 5, 7, 8: the 5 has most chips
    assert g.turn == 1


def test_d18_an_away_roller_without_a_match_passes_and_the_window_still_holds():
    g = game(seats=2, dice=[1, 1, 1, 2, 2, 2], options={"away_limit_ms": 500})
    arrange(g, 1, [3, 5], rest([3, 5]))
    act(g, 0, {"type": "roll"}, 100)
    act(g, 0, {"type": "pass"}, 200)  # seat 1 may roll from 1700
    act(g, HOST, {"type": "away", "seat": 1}, 300)
    assert g.next_deadline() == 1700  # the away limit (800) waits for the window
    notes = act(g, HOST, TIMEOUT, 1700)
    assert [n["type"] for n in notes] == ["default_play", "rolled", "passed", "turn"]


def test_d18_joker_default_lays_the_match_and_the_richest_other_card():
    g = game(seats=2, dice=[2, 2, 2], options={"away_limit_ms": 0})
    arrange(g, 0, [4, 7, 12], rest([4, 7, 12]))
    act(g, HOST, {"type": "away", "seat": 0}, 10)
    notes = act(g, HOST, TIMEOUT, 10)
    assert notes[2] == {"type": "laid", "seat": 0, "cards": [4, 12]}


def test_d18_the_away_clock_starts_with_the_turn_and_back_stops_it():
    g = game(
        seats=2,
        dice=[1, 2, 3],
        options={"away_limit_ms": 5000, "knock_window_ms": 0, "turn_limit_ms": 0},
    )
    act(g, HOST, {"type": "away", "seat": 1}, 0)
    act(g, 0, {"type": "roll"}, 1000)
    act(g, 0, {"type": "pass"}, 4000)
    assert g.next_deadline() == 9000  # from the start of seat 1's turn
    act(g, HOST, {"type": "back", "seat": 1}, 4500)
    assert g.next_deadline() is None


def test_turn_limit_plays_the_default_for_anybody():
    g = game(seats=2, dice=[2, 3, 5], options={"turn_limit_ms": 20_000})
    act(g, 0, {"type": "roll"}, 1000)
    assert g.next_deadline() == 20_000  # from the start of the turn
    notes = act(g, HOST, TIMEOUT, 20_000)
    assert [n["type"] for n in notes] == ["default_play", "laid", "turn"]


# ---- view and replay ---------------------------------------------------------------------------


def test_view_shows_what_the_screens_need():
    g = game(seats=2, dice=[2, 3, 5])
    act(g, 0, {"type": "roll"}, 10)
    view = g.view(1)
    assert view["phase"] == "play" and view["turn"] == 0 and view["stage"] == "decide"
    assert view["roll"]["dice"] == [2, 3, 5] and view["roll"]["status"] == "deciding"
    assert "good_done" not in view["roll"]
    me = view["players"][1]
    assert me["open"][0] == {"number": 2, "chip": 6, "id": 11} and me["open_chips"] == 41
    assert me["back"] == "blue" and me["laid"] == [] and view["players"][0]["laid"] is None


def test_a_logged_game_replays_to_the_same_digest():
    header = {"ruleset": "knock", "seats": 2, "seed": b"replay", "options": {}, "t0": 0}
    g = new_game("knock", 2, b"replay")
    events = []
    for s in range(2):
        events.append(
            {
                "seat": s,
                "t": 0,
                "action": {"type": "prelay", "commit": prelay_commitment([7], "aa")},
            }
        )
    for s in range(2):
        events.append({"seat": s, "t": 0, "action": {"type": "reveal", "cards": [7], "salt": "aa"}})
    for e in events:
        g.apply(e["seat"], e["action"], e["t"])
    e = {"seat": g.turn, "t": 5, "action": {"type": "roll"}}
    g.apply(e["seat"], e["action"], e["t"])
    events.append(e)
    assert replay(header, events).digest() == g.digest()


def test_the_next_roller_may_still_knock_on_the_roll_before_their_own():
    g = game(seats=3, dice=[2, 3, 5])
    arrange(g, 0, [2, 3], rest([2, 3]))
    act(g, 0, {"type": "roll"}, 100)
    act(g, 0, {"type": "pass"}, 200)
    assert g.turn == 1 and g.stage == "roll"
    note = knock(g, 1, t=300)
    assert (note["judgement"], note["laid"]) == ("good", 5)


def test_a_prelay_that_empties_a_hand_wins_the_round_at_once():
    # Only possible with a table whose chips let all 11 cards be pre-laid.
    chips = [0] * 11
    g = new_game("knock", 2, seed=b"zero", options={"chips": chips, "rounds": 2})
    everything = list(range(2, 13))
    act(g, 0, {"type": "prelay", "commit": prelay_commitment(everything, SALT)}, 10)
    act(g, 1, {"type": "prelay", "commit": prelay_commitment([], SALT)}, 10)
    act(g, 0, {"type": "reveal", "cards": everything, "salt": SALT}, 20)
    notes = act(g, 1, {"type": "reveal", "cards": [], "salt": SALT}, 30)
    assert [n["type"] for n in notes] == ["revealed", "prelays_done", "round_over"]
    assert notes[-1]["winners"] == [0]
    assert g.round == 2 and g.phase == "prelay_commit" and g.next_deadline() == 30 + 30_000
