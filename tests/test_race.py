"""The race game (docs/rules.md section 3, [D8]-[D12], [D18]) with scripted dice and arranged circles."""

import pytest

from kismet_tui.rules import HOST, IllegalAction, ScriptedRNG, cards, new_game, replay
from kismet_tui.rules.race import normalize_options
from tests.rules_util import NO_2_4_12, TIMEOUT, arrange, grab, refused, roll_now


def game(seats=2, dice=(), options=None, start_ms=0, circle=None):
    g = new_game(
        "race",
        seats,
        seed=b"race-test",
        options=options,
        rng=ScriptedRNG(list(dice)),
        start_ms=start_ms,
    )
    if circle is not None:
        arrange(g, circle)
    return g


def next_deals(g, count):
    """The cards the pile will deal next [D19], worked out from a copy of the game's stream:
    each a uniform draw from the unseen cards (ascending ids), then the slid-under ones."""
    import copy

    rng = copy.deepcopy(g.rng)
    rng._script = []  # dice come first in a round; the deals draw from the stream
    unseen, under = list(g.unseen), list(g.under)
    return [unseen.pop(rng.below(len(unseen))) if unseen else under.pop(0) for _ in range(count)]


def keep_in_pile(g, count):
    """Set-up: leave only `count` cards in the pile (the rest leave the game)."""
    g.removed, g.unseen, g.under = g.unseen[count:], g.unseen[:count], []


def all_cards(g):
    held = [c for pile in g.winning for c in pile]
    return sorted([c for c in g.circle if c is not None] + g.unseen + g.under + held + g.removed)


# A circle with exactly one card for each number: targets are easy to reason about.
ONE_EACH = list(range(2, 13))
# ---- options ---------------------------------------------------------------------------------


def test_options_have_defaults_and_refuse_nonsense():
    assert normalize_options({}) == {
        "countdown_ms": 3000,
        "round_limit_ms": 10_000,
        "reveal_ms": 2000,
        "away_limit_ms": 30_000,
        "chips": list(cards.DEFAULT_CHIPS),
    }
    with pytest.raises(IllegalAction, match="no option called speed"):
        normalize_options({"speed": 3})
    with pytest.raises(IllegalAction, match="round's time limit"):
        normalize_options({"round_limit_ms": -1})
    with pytest.raises(IllegalAction, match="11 values"):
        normalize_options({"chips": [1, 2]})


def test_two_to_eight_players():
    with pytest.raises(IllegalAction, match="2 to 8"):
        new_game("race", 1, b"x")
    with pytest.raises(IllegalAction, match="2 to 8"):
        new_game("race", 9, b"x")


def test_setup_deals_eleven_from_one_set_per_player_without_shuffling_the_pile():
    g = new_game("race", 3, b"setup")
    assert len([c for c in g.circle if c is not None]) == 11 and g.pile_count == 22
    # [D19] nothing but the eleven deals was drawn, and the pile keeps no hidden order
    assert g.rng.state() == {"drawn": 11} and g.unseen == sorted(g.unseen) and g.under == []
    assert all_cards(g) == list(range(33))
    other = new_game("race", 3, b"other seed")
    assert other.circle != g.circle  # the seed decides the deck


# ---- [D8] the countdown and the roll ------------------------------------------------------------


def test_d8_first_countdown_counts_from_t0_and_the_host_rolls():
    g = game(dice=[2, 3, 5], start_ms=50_000, circle=ONE_EACH)
    assert g.phase == "countdown" and g.next_deadline() == 53_000
    assert g.view(0)["deadline"] == 53_000
    refused(g, 0, {"type": "grab", "card": 3}, "Wait for the dice: they roll in 1.8 s.", t=51_200)
    refused(g, HOST, TIMEOUT, "Too early", t=52_999)
    notes = g.apply(HOST, TIMEOUT, 53_000)
    assert notes == [{"type": "rolled", "round": 1, "dice": [2, 3, 5], "targets": [5, 7, 8]}]
    view = g.view(1)
    assert view["phase"] == "grabbing" and view["deadline"] == 63_000
    assert view["dice"] == [2, 3, 5] and view["targets"] == [5, 7, 8] and not view["joker"]
    assert [c["number"] for c in view["circle"] if c["target"]] == [5, 7, 8]


def test_d8_after_a_reveal_a_pause_then_the_next_countdown():
    g = game(dice=[2, 3, 5], circle=ONE_EACH, options={"reveal_ms": 2000, "countdown_ms": 3000})
    roll_now(g)
    grab(g, 0, 3, t=3100)  # the 5
    notes = g.apply(1, {"type": "pass"}, 3200)
    assert g.phase == "pause" and g.next_deadline() == 5200
    assert notes[-1] == {"type": "pause", "deadline": 5200}
    # The host stamps the pause's end late: the countdown still lasts its full 3 s.
    notes = g.apply(HOST, TIMEOUT, 5900)
    assert notes == [{"type": "countdown", "deadline": 8900}]
    assert g.phase == "countdown" and g.next_deadline() == 8900


# ---- [D9] nothing matches ------------------------------------------------------------------------


def test_d9_no_match_wipes_the_circle_and_deals_eleven_new():
    g = game(seats=3, dice=[1, 1, 1], circle=NO_2_4_12)
    wiped = list(g.circle)
    top_eleven = next_deals(g, 11)
    notes = roll_now(g)
    assert notes[0]["targets"] == [2]
    assert notes[1] == {"type": "wiped", "cards": wiped}
    assert notes[2] == {
        "type": "dealt",
        "cards": [{"pos": p, "card": c} for p, c in enumerate(top_eleven)],
    }
    assert g.removed == wiped and g.circle == top_eleven and g.pile_count == 11
    assert g.phase == "pause" and g.view(0)["last_round"]["why"] == "no_match"
    assert all_cards(g) == list(range(33))


def test_d9_a_wipe_the_pile_cannot_replace_ends_the_game():
    g = game(seats=2, dice=[1, 1, 1], circle=NO_2_4_12)
    keep_in_pile(g, 1)  # set-up: one card left in the pile
    notes = roll_now(g)
    assert notes[1]["type"] == "wiped"
    assert notes[-1] == {"type": "game_over", "scores": [0, 0], "winners": [0, 1]}
    assert g.finished and g.next_deadline() is None and len(g.removed) == 21
    assert all_cards(g) == list(range(22))


# ---- [D10] grabs in stamp order ------------------------------------------------------------------


def test_d10_two_grabs_on_one_card_the_first_stamped_wins():
    g = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    t = g.now + 400
    # Both arrive in the same millisecond: stamp (apply) order decides.
    assert grab(g, 2, 6, t=t) == [{"type": "grabbed", "seat": 2, "pos": 6, "card": g.circle[6]}]
    refused(g, 0, {"type": "grab", "card": 6}, "Seat 2 grabbed that card first: grab another one.")
    # No penalty, and the refused player may grab another card.
    grab(g, 0, 3, t=t + 5)
    assert [(x["seat"], x["pos"]) for x in g.view(1)["grabs"]] == [(2, 6), (0, 3)]
    assert g.view(1)["circle"][6]["grabbed_by"] == 2


def test_d10_a_grab_is_final_and_the_reveal_follows_grab_order():
    g = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    g.winning[1] = [g.unseen.pop()]  # seat 1 owns one card already
    penalty = g.winning[1][0]
    roll_now(g)
    grab(g, 1, 0)  # the 2: wrong
    refused(g, 1, {"type": "grab", "card": 3}, "a grab is final")
    grab(g, 0, 6)  # the 8: right
    notes = grab(g, 2, 5)  # the 7: right; all have grabbed
    reveals = [n for n in notes if n["type"] == "revealed"]
    assert [(r["seat"], r["right"], r["penalty"]) for r in reveals] == [
        (1, False, penalty),
        (0, True, None),
        (2, True, None),
    ]
    assert g.under == [penalty]  # slid under the face-down pile
    assert g.winning[1] == [] and cards.number_of(g.winning[0][-1]) == 8
    assert cards.number_of(g.circle[0]) == 2  # the wrong card stays in the circle


def test_d10_the_named_card_id_must_still_lie_there():
    g = game(dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    refused(g, 0, {"type": "grab", "card": 3, "id": g.circle[4]}, "That card has left the circle")
    refused(g, 0, {"type": "grab", "card": 3, "id": str(g.circle[3])}, "There is no such card")
    g.apply(0, {"type": "grab", "card": 3, "id": g.circle[3]}, g.now)
    assert g.grabs[0]["card"] == g.circle[3]


def test_an_id_no_card_of_the_game_has_is_malformed_not_a_card_that_left():
    g = game(dice=[2, 3, 5], circle=ONE_EACH)  # two seats: cards 0 to 21
    roll_now(g)
    for named in (22, 50, 87, 88):
        # (past 87 the declaration refuses it first, before the engine sees it)
        words = "There is no such card: card ids go from 0 to 87."
        if named <= 87:
            words = f"There is no card {named} in this game: its cards are 0 to 21."
        refused(g, 0, {"type": "grab", "card": 3, "id": named}, words)
        with pytest.raises(IllegalAction) as caught:
            g.apply(0, {"type": "grab", "card": 3, "id": named}, g.now)
        assert (caught.value.code, caught.value.kind) == ("bad_action", "malformed")


def test_refusals_of_grabs_are_in_plain_words():
    g = game(dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    refused(g, 0, {"type": "grab"}, "a place from 0 to 10")
    refused(g, 0, {"type": "grab", "card": 11}, "a place from 0 to 10")
    refused(g, 0, {"type": "grab", "card": True}, "a place from 0 to 10")
    refused(g, HOST, {"type": "grab", "card": 1}, "The host does not play")
    refused(g, 0, {"type": "roll"}, "no action called 'roll'")


# ---- [D11] pass ----------------------------------------------------------------------------------


def test_d11_pass_ends_a_players_round_and_all_passing_ends_it():
    g = game(dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    assert g.apply(0, {"type": "pass"}, g.now) == [{"type": "passed", "seat": 0}]
    refused(g, 0, {"type": "grab", "card": 3}, "You passed this round.")
    refused(g, 0, {"type": "pass"}, "You passed this round.")
    assert g.legal_actions(0) == []
    notes = g.apply(1, {"type": "pass"}, g.now)
    assert notes[:2] == [{"type": "passed", "seat": 1}, {"type": "round_ended", "why": "all_done"}]
    assert g.phase == "pause"


# ---- [D12] how a round ends ----------------------------------------------------------------------


def test_d12_the_round_ends_when_no_ungrabbed_match_is_left():
    g = game(seats=3, dice=[1, 1, 1], circle=[2, 3, 3, 5, 5, 6, 7, 8, 9, 10, 11])
    roll_now(g)  # target 2: one card shows it
    notes = grab(g, 1, 0)
    assert notes[1] == {"type": "round_ended", "why": "no_match_left"}
    assert cards.number_of(g.winning[1][-1]) == 2


def test_d12_the_round_limit_ends_it_by_the_hosts_timeout():
    g = game(dice=[2, 3, 5], circle=ONE_EACH, options={"round_limit_ms": 4000})
    roll_now(g)
    rolled_at = g.now
    grab(g, 0, 3, t=rolled_at + 1000)
    assert g.next_deadline() == rolled_at + 4000
    refused(g, HOST, TIMEOUT, "Too early", t=rolled_at + 3999)
    notes = g.apply(HOST, TIMEOUT, rolled_at + 4000)
    assert notes[0] == {"type": "round_ended", "why": "time_up"}
    refused(g, 1, {"type": "grab", "card": 4}, "This round is over")


# ---- reveal, refill, end -------------------------------------------------------------------------


def test_refill_fills_empty_places_lowest_first_from_the_top_of_the_pile():
    g = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    top_two = next_deals(g, 2)
    grab(g, 0, 6)  # 8 at place 6
    grab(g, 1, 3)  # 5 at place 3
    notes = g.apply(2, {"type": "pass"}, g.now)
    assert {
        "type": "dealt",
        "cards": [{"pos": 3, "card": top_two[0]}, {"pos": 6, "card": top_two[1]}],
    } in notes
    assert g.circle[3] == top_two[0] and g.circle[6] == top_two[1]
    assert g.view(0)["last_round"]["dealt"] == [
        {"pos": 3, "card": top_two[0]},
        {"pos": 6, "card": top_two[1]},
    ]


def test_a_wrong_grab_with_an_empty_winning_pile_costs_nothing():
    g = game(dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    pile = (list(g.unseen), list(g.under))
    grab(g, 0, 0)
    notes = g.apply(1, {"type": "pass"}, g.now)
    assert {
        "type": "revealed",
        "seat": 0,
        "pos": 0,
        "card": g.circle[0],
        "number": 2,
        "right": False,
        "penalty": None,
    } in notes
    assert (g.unseen, g.under) == pile and g.winning[0] == []


def test_the_game_ends_when_the_pile_cannot_refill_and_scores_are_chips():
    g = game(seats=2, dice=[6, 6, 5], circle=ONE_EACH)
    keep_in_pile(g, 1)  # set-up: one card left in the pile
    roll_now(g)  # targets 11 and 12
    grab(g, 0, 10)  # the 12: right
    notes = grab(g, 1, 9)  # the 11: right; two places, one card
    assert notes[-1] == {"type": "game_over", "scores": [6, 5], "winners": [0]}
    assert g.result() == {"scores": [6, 5], "winners": [0]}
    assert g.circle.count(None) == 2 and all_cards(g) == list(range(22))
    refused(g, 0, {"type": "pass"}, "The game is over.")
    assert g.legal_actions(0) == [] and g.legal_actions(HOST) == []


def test_ties_share_the_win_and_a_custom_chip_table_counts():
    chips = [1] * 11
    g = game(seats=2, dice=[6, 6, 5], circle=ONE_EACH, options={"chips": chips})
    keep_in_pile(g, 1)
    roll_now(g)
    grab(g, 0, 10)
    grab(g, 1, 9)
    assert g.result() == {"scores": [1, 1], "winners": [0, 1]}


# ---- [D18] away players count as passed ----------------------------------------------------------


def test_d18_an_away_player_counts_as_passed():
    g = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    grab(g, 0, 3)
    g.apply(1, {"type": "pass"}, g.now)
    assert g.phase == "grabbing"
    notes = g.apply(HOST, {"type": "away", "seat": 2}, g.now + 10)
    assert notes[:2] == [{"type": "away", "seat": 2}, {"type": "round_ended", "why": "all_done"}]


def test_d18_an_away_players_grab_is_refused_until_they_are_back():
    g = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    g.apply(HOST, {"type": "away", "seat": 2}, 10)
    roll_now(g)
    refused(g, 2, {"type": "grab", "card": 3}, "Seat 2 is marked away")
    assert g.legal_actions(2) == []
    g.apply(HOST, {"type": "back", "seat": 2}, g.now)
    grab(g, 2, 3)
    assert g.grabs[0]["seat"] == 2


def test_d32_an_away_player_passes_only_while_away_and_back_in_time_may_grab():
    """[D32] Away in the middle of a round, the round stops waiting for them; back before
    it ends, they play it like everyone (their pass or grab is still theirs to make)."""
    g = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    grab(g, 0, 3)
    g.apply(HOST, {"type": "away", "seat": 2}, g.now + 10)
    assert g.phase == "grabbing" and g.view(None)["done"] == [True, False, True]
    g.apply(HOST, {"type": "back", "seat": 2}, g.now + 20)
    assert g.view(None)["done"] == [True, False, False]
    grab(g, 2, 5)
    assert [grab_["seat"] for grab_ in g.grabs] == [0, 2] and g.phase == "grabbing"


def test_d18_a_roll_with_everybody_away_ends_its_round_at_once():
    g = game(seats=2, dice=[2, 3, 5], circle=ONE_EACH)
    g.apply(HOST, {"type": "away", "seat": 0}, 10)
    g.apply(HOST, {"type": "away", "seat": 1}, 20)
    notes = roll_now(g)
    assert notes[1] == {"type": "round_ended", "why": "all_done"} and g.phase == "pause"


# ---- the view ---------------------------------------------------------------------------------


def test_view_never_shows_the_order_of_the_pile():
    g1 = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    g2 = game(seats=3, dice=[2, 3, 5], circle=ONE_EACH)
    g2.unseen, g2.under = g2.unseen[1:], g2.unseen[:1]  # same count, another split
    assert g1.digest() != g2.digest()
    for seat in (None, 0, 1, 2):
        assert g1.view(seat) == g2.view(seat)
    assert g1.view(0)["pile_count"] == 22


def test_view_shows_circle_grabs_scores_and_winning_piles():
    g = game(seats=2, dice=[2, 3, 5], circle=ONE_EACH)
    roll_now(g)
    grab(g, 1, 5)
    view = g.view(None)
    assert view["you"] is None and view["done"] == [False, True]
    place = view["circle"][5]
    assert place == {
        "id": g.circle[5],
        "number": 7,
        "chip": 1,
        "set": cards.set_of(g.circle[5]),
        "back": cards.back_of(g.circle[5]),
        "pos": 5,
        "target": True,
        "grabbed_by": 1,
    }
    g.apply(0, {"type": "pass"}, g.now)
    view = g.view(1)
    assert view["players"][1]["pile_count"] == 1 and view["players"][1]["top"]["number"] == 7
    assert view["scores"] == [0, 1] and view["players"][0]["top"] is None
    assert view["last_round"]["reveals"][0]["right"] is True
    assert view["circle"][5]["grabbed_by"] is None  # a new card lies there now


def test_replaying_the_log_gives_the_same_game():
    header = {"ruleset": "race", "seats": 2, "seed": b"log", "options": {}, "t0": 1000}
    g = new_game("race", 2, b"log", start_ms=1000)
    events = []

    def stamp(seat, action, t):
        g.apply(seat, action, t)
        events.append({"seat": seat, "action": action, "t": t})

    stamp(HOST, TIMEOUT, 4000)
    first = g.legal_actions(0)[0]
    stamp(0, first, 4500)
    if g.phase == "grabbing":
        stamp(1, {"type": "pass"}, 4600)
    assert replay(header, events).digest() == g.digest()
