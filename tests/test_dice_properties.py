"""Random legal dice games of 1 to 8 seats, played to the end and checked as a whole."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kismet_tui.rules import (
    HOST,
    Refusal,
    ScriptedRNG,
    SeededRNG,
    canonical,
    new_game,
    replay,
)
from kismet_tui.rules.dice import BASIC_BOXES, BOXES, KISMET_BOXES, basic_bonus, takes_joker
from kismet_tui.rules.playout import random_playout
from protocol.actions import build_action

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.fixed_dictionaries(
    {
        "seats": st.integers(1, 8),
        "seed": st.binary(min_size=1, max_size=16),
        "moves": st.integers(0, 2**32 - 1),
        "options": st.sampled_from(
            [
                {},
                {"turn_limit_ms": 3000},
                {"away_limit_ms": 0},
                {"away_limit_ms": 2500, "turn_limit_ms": 4000},
            ]
        ),
        "away_chance": st.sampled_from([0, 15]),
    }
)


def play(spec):
    header = {
        "ruleset": "dice",
        "seats": spec["seats"],
        "seed": spec["seed"],
        "options": spec["options"],
        "t0": 1000,
    }
    game = new_game("dice", spec["seats"], spec["seed"], spec["options"], start_ms=1000)
    log = random_playout(game, SeededRNG(spec["moves"]), away_chance=spec["away_chance"])
    return header, game, log


def check_finished_cards(game):
    assert game.finished
    result = game.result()
    for seat, card in enumerate(game.cards):
        assert all(points is not None for points in card.values()), f"seat {seat} not full"
        basic = sum(card[b] for b in BASIC_BOXES)
        total = basic + basic_bonus(basic) + sum(card[b] for b in KISMET_BOXES)
        assert result["scores"][seat] == total
    assert result["winners"] == [
        s for s, v in enumerate(result["scores"]) if v == max(result["scores"])
    ]


@SETTINGS
@given(games)
def test_random_games_end_with_every_card_full_and_replay_to_the_same_digest(spec):
    header, game, log = play(spec)
    check_finished_cards(game)
    assert replay(header, log).digest() == game.digest()
    # Same seed and same actions, played again from scratch: the same game, event by event.
    _, again, log_again = play(spec)
    assert log_again == log and again.digest() == game.digest()


def some_action(game, rng):
    """A random action from any seat (the host included): most are illegal, some legal.
    Drawn from a SeededRNG rather than Hypothesis's data, which is far too slow per step."""
    seat = rng.below(game.seats + 1) - 1
    kind = rng.below(6)
    if kind == 5:  # a hold of any subset of the five positions, all five included
        mask = rng.below(32)
        action = {"type": "roll", "hold": [i for i in range(5) if mask >> i & 1]}
    elif kind == 0:
        action = {"type": "roll", "hold": [rng.below(7) - 1 for _ in range(rng.below(7))]}
    elif kind == 1:
        action = {"type": "score", "box": (BOXES + ("chance",))[rng.below(len(BOXES) + 1)]}
    elif kind == 2:
        action = {"type": "score", "box": BOXES[rng.below(len(BOXES))], "joker": True}
    elif kind == 3:
        action = {"type": "timeout"}
    else:
        action = {"type": "away", "seat": rng.below(game.seats)}
    return seat, action


def is_legal(game, seat, action, t):
    """Whether the rules allow `action` now, worked out from legal_actions and the deadline."""
    if t < game.now:
        return False
    if seat == HOST:
        if action["type"] == "away":
            return not game.away[action["seat"]]
        deadline = game.next_deadline()
        return action["type"] == "timeout" and deadline is not None and t >= deadline
    plain = dict(action)
    if plain.get("joker") and not (game.joker_now() and takes_joker(plain["box"], game.dice[0])):
        return False
    plain.pop("joker", None)
    hold = plain.get("hold")
    if hold is not None and len(set(hold)) == len(hold):
        plain["hold"] = sorted(hold)  # the order of the positions does not matter
    return plain in game.legal_actions(seat)


@SETTINGS
@given(games, st.integers(0, 2**32 - 1))
def test_every_action_outside_legal_actions_is_refused_and_changes_nothing(spec, tries_seed):
    header, played, log = play(spec)
    game = new_game("dice", spec["seats"], spec["seed"], spec["options"], start_ms=1000)
    tries = SeededRNG(tries_seed)
    for event in log:
        for _ in range(3):
            seat, action = some_action(game, tries)
            t = event["t"] - tries.below(2)
            if is_legal(game, seat, action, t):
                continue  # playing it would leave the recorded game
            before = game.digest()
            try:  # (built at the edge first, as every action that enters the engine is)
                game.apply(seat, build_action("dice", action), t)
            except Refusal as refusal:
                assert refusal.words.strip()
            else:
                raise AssertionError(f"{action} from seat {seat} at {t} was accepted")
            assert game.digest() == before
        game.apply(event["seat"], event["action"], event["t"])
        # Every view is plain data a client can encode (no floats, string keys).
        viewer = tries.below(game.seats + 1)  # a seat, or a spectator when == seats
        canonical(game.view(None if viewer == game.seats else viewer))
    assert game.digest() == played.digest()


def play_all_kismets(seats, moves):
    """Play a random game in which every roll is five sixes [D4][D5], checking that each
    turn ends in a second Kismet exactly when the roller's Kismet box already holds one.
    Returns the number of second Kismets."""

    def rigged():
        # Roll-off: seat 0 throws 6, the others 1; then sixes for ever (a game uses < 2000).
        return ScriptedRNG([6] + [1] * (seats - 1) + [6] * 2000)

    game = new_game("dice", seats, b"x", rng=rigged())
    log = random_playout(game, SeededRNG(moves))
    check_finished_cards(game)
    again = new_game("dice", seats, b"x", rng=rigged())
    second_kismets = 0
    for event in log:
        mover = again.current
        holds = again.holds_kismet(mover)
        # The zeros a penalty must write: each other seat's first open box, in seat order.
        expected = [
            [s, next(b for b in BOXES if again.cards[s][b] is None)]
            for s in range(seats)
            if s != mover and None in again.cards[s].values()
        ]
        notes = again.apply(event["seat"], event["action"], event["t"])
        kinds = [note["type"] for note in notes]
        if "scored" in kinds:
            assert ("penalty" in kinds) == holds
            if holds:
                second_kismets += 1
                penalty = notes[kinds.index("penalty")]
                assert penalty["victims"] == expected
    assert again.digest() == game.digest()
    return second_kismets


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_games_where_every_roll_is_five_of_a_kind(seats, moves):
    play_all_kismets(seats, moves)


def test_all_kismet_games_do_reach_second_kismets():
    assert play_all_kismets(3, 1) > 0 and play_all_kismets(1, 2) > 0
