"""[D19] The race pile keeps no hidden order: each deal is a uniform draw from the cards
nobody has seen, and cards slid under the pile come out after them, in the order they went."""

from collections import Counter

from kismet_tui.rules import HOST, ScriptedRNG, new_game
from tests.rules_util import NO_2_4_12, arrange, grab, roll_now

TIMEOUT = {"type": "timeout"}


def wipe_game(seed: int, seats: int = 2):
    """A game whose first roll (three 1s: target 2) matches nothing in its circle."""
    g = new_game("race", seats, seed=b"unused", rng=ScriptedRNG([1, 1, 1], seed=seed))
    arrange(g, NO_2_4_12)
    return g


def test_the_first_card_dealt_after_the_circle_is_uniform_over_the_unseen_cards():
    games = 2200
    counts = Counter()
    for seed in range(games):
        g = wipe_game(seed)
        unseen = list(g.unseen)  # 11 cards, ascending ids
        notes = roll_now(g)  # the wipe deals 11 new cards
        dealt = next(n for n in notes if n["type"] == "dealt")["cards"]
        counts[unseen.index(dealt[0]["card"])] += 1
    assert set(counts) == set(range(11))
    expected = games / 11
    chi2 = sum((counts[i] - expected) ** 2 / expected for i in range(11))
    # 10 degrees of freedom: the 1-in-a-billion bound is about 60. The seeds are fixed, so the
    # test is deterministic; the bound only has to fail for a pile that favours some cards
    # (taking unseen[0] each time, for one, gives chi2 = 22000).
    assert chi2 < 60, (chi2, sorted(counts.items()))


def test_cards_slid_under_come_out_last_in_the_order_they_went():
    g = new_game("race", 3, seed=b"unused", rng=ScriptedRNG([2, 3, 5], seed=5))
    arrange(g, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    first, second = g.unseen.pop(), g.unseen.pop(0)
    g.winning[0], g.winning[1] = [first], [second]
    roll_now(g)  # targets 5, 7, 8
    grab(g, 1, 0)  # the 2: wrong, seat 1 slides `second` under
    grab(g, 0, 1)  # the 3: wrong, seat 0 slides `first` under
    g.apply(2, {"type": "pass"}, g.now)
    assert g.under == [second, first]  # grab order, not seat order
    # Leave 9 unseen cards: the next wipe deals those 9 (in random order), then the two under.
    unseen = list(g.unseen)
    g.removed.extend(unseen[9:])
    g.unseen = unseen[:9]
    g.apply(HOST, TIMEOUT, g.next_deadline())  # pause -> countdown
    g.rng.push(1, 1, 1)
    arrange_no_match(g)
    notes = roll_now(g)
    dealt = [d["card"] for d in next(n for n in notes if n["type"] == "dealt")["cards"]]
    assert sorted(dealt[:9]) == sorted(unseen[:9])
    assert dealt[9:] == [second, first]
    assert g.unseen == [] and g.under == []


def arrange_no_match(g):
    """Make every card of the circle one that three 1s (target 2) cannot take, keeping the
    pile as it is: circle cards showing a 2 swap with removed cards that do not."""
    from kismet_tui.rules import cards

    for pos, card in enumerate(g.circle):
        if card is not None and cards.number_of(card) == 2:
            swap = next(c for c in g.removed if cards.number_of(c) != 2)
            g.removed[g.removed.index(swap)] = card
            g.circle[pos] = swap
