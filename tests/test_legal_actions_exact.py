"""legal_actions(seat, t) is exact, for every game, phase and seat (the host's too).

Both directions, at moments of random games and at the times where rules change their mind
(just before and at a deadline, just before and at the end of knock's knock window [D15],
before the last event): every listed action is accepted by `apply` at that time, and actions
from each game's whole vocabulary that are not listed are refused, leaving the game as it was;
one that time alone makes legal is refused as NOT_YET (kismet_tui/rules/refusal.py).
The vocabulary holds every move in its plain spelling (every hold, box, card, place,
knock; the public pre-lays) plus the host's actions and a few that never exist. A pre-lay
under a secret commitment is the one open-ended move: any 64-digit commitment is accepted
exactly when a pre-lay is listed.
"""

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kismet_tui.rules import HOST, IllegalAction, SeededRNG, new_game
from kismet_tui.rules import knock as knock_rules
from kismet_tui.rules.cards import CIRCLE_SIZE, NUMBERS
from kismet_tui.rules.dice import BOXES
from kismet_tui.rules.playout import random_playout
from kismet_tui.rules.refusal import NOT_YET

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SECRET_COMMIT = "ab" * 32  # a commitment no public pre-lay has
TIME_ALONE_MS = 5000  # later than every window and deadline the tests' options set


def common(game):
    marks = [{"type": kind, "seat": s} for s in range(game.seats) for kind in ("away", "back")]
    return [{"type": "timeout"}, {"type": "nonsense"}] + marks


def dice_vocabulary(game):
    holds = [[i for i in range(5) if mask >> i & 1] for mask in range(32)]
    return [{"type": "roll", "hold": h} for h in holds] + [
        {"type": "score", "box": b} for b in BOXES
    ]


def race_vocabulary(game):
    moves = [{"type": "pass"}]
    for pos in range(CIRCLE_SIZE):
        card = game.circle[pos]
        moves.append({"type": "grab", "card": pos, "id": 0 if card is None else card})
        if card is not None:
            moves.append({"type": "grab", "card": pos, "id": card + 1})  # the wrong card
    return moves


def knock_vocabulary(game):
    public = knock_rules._public_prelays(tuple(game.chips))
    moves = [
        {"type": "roll"},
        {"type": "pass"},
        {"type": "knock"},
        {"type": "prelay", "commit": SECRET_COMMIT},
    ]
    moves += [{"type": "prelay", "commit": c} for c in public]
    moves += [
        {"type": "reveal", "cards": cards, "salt": knock_rules.PUBLIC_SALT}
        for cards in public.values()
    ]
    for n in NUMBERS:
        moves += [{"type": "lay", "card": n}, {"type": "knock", "card": n}]
        moves += [{"type": "lay", "card": n, "extra": m} for m in NUMBERS if m != n]
    return moves


VOCABULARY = {"dice": dice_vocabulary, "race": race_vocabulary, "knock": knock_vocabulary}


def key(action):
    """Actions that are one move: every pre-lay commitment is the same move (see above)."""
    return ("prelay",) if action["type"] == "prelay" else repr(sorted(action.items()))


def probe_times(game, next_t):
    times = {game.now, next_t, game.now + 1}
    if game.now > 0:
        times.add(game.now - 1)
    for edge in (game.next_deadline(), getattr(game, "roll_from", None)):
        if edge is not None:
            times.update((edge - 1, edge))
    return sorted(t for t in times if t >= 0)


def check_exact(game, t, rng, apply_all):
    """Both directions for every seat at time t; returns how many actions were applied."""
    before = game.digest()
    vocabulary = [(key(a), a) for a in common(game) + VOCABULARY[game.RULESET](game)]
    applied = 0
    for seat in [HOST] + list(range(game.seats)):
        listed = game.legal_actions(seat, t)
        keys = [key(a) for a in listed if a["type"] != "prelay"]
        assert len(keys) == len(set(keys)), f"seat {seat} lists a move twice: {listed}"
        if t < game.now:
            assert listed == [], "nothing may be stamped before the last event"
        chosen = listed if apply_all else [listed[rng.below(len(listed))]] if listed else []
        for action in chosen:
            trial = copy.deepcopy(game)
            try:
                trial.apply(seat, action, t)
            except IllegalAction as refusal:
                raise AssertionError(
                    f"seat {seat} at {t}: listed {action} refused: {refusal.words}"
                ) from None
            applied += 1
        listed_keys = {key(a) for a in listed}
        unlisted = [a for k, a in vocabulary if k not in listed_keys]
        for _ in range(min(8, len(unlisted))):
            action = unlisted[rng.below(len(unlisted))]
            try:
                game.apply(seat, action, t)
            except IllegalAction as refusal:
                assert refusal.words.strip()
            else:
                raise AssertionError(f"seat {seat} at {t}: unlisted {action} was accepted")
        # What time alone makes legal (the knock window closing, a deadline passing) is
        # refused now with the kind NOT_YET, which is all the bot runner reads to try again.
        for action in game.legal_actions(seat, t + TIME_ALONE_MS) if t >= game.now else []:
            if key(action) not in listed_keys:
                try:
                    game.apply(seat, action, t)
                except IllegalAction as refusal:
                    assert refusal.kind == NOT_YET, (seat, t, action, refusal.kind, refusal.words)
                else:
                    raise AssertionError(f"seat {seat} at {t}: unlisted {action} was accepted")
        assert game.digest() == before, f"a refusal for seat {seat} changed the game"
    return applied


def play_and_check(ruleset, seats, seed, play_seed, options, max_steps, **playout):
    played = new_game(ruleset, seats, seed, options, start_ms=100)
    log = random_playout(played, SeededRNG(play_seed), max_steps=max_steps, **playout)
    game = new_game(ruleset, seats, seed, options, start_ms=100)
    rng = SeededRNG(play_seed ^ 0x5EED)
    applied = 0
    for event in log + [None]:
        next_t = game.now if event is None else event["t"]
        times = probe_times(game, next_t)
        for _ in range(2):  # two of the moments, the edges included, at random
            t = times[rng.below(len(times))]
            applied += check_exact(game, t, rng, apply_all=rng.below(6) == 0)
        if event is not None:
            game.apply(event["seat"], event["action"], event["t"])
    assert game.digest() == played.digest()
    assert applied > 0
    return game, log


seeds = st.integers(0, 2**32 - 1)


@SETTINGS
@given(
    seats=st.integers(1, 4),
    seed=seeds,
    play_seed=seeds,
    away=st.sampled_from([0, 12]),
    options=st.sampled_from([{}, {"turn_limit_ms": 3000}, {"away_limit_ms": 1500}]),
)
def test_dice_lists_exactly_what_apply_accepts(seats, seed, play_seed, away, options):
    play_and_check("dice", seats, seed, play_seed, options, 100, away_chance=away)


@SETTINGS
@given(
    seats=st.integers(2, 4),
    seed=seeds,
    play_seed=seeds,
    away=st.sampled_from([0, 12]),
    gap=st.sampled_from([300, 2000]),
)
def test_race_lists_exactly_what_apply_accepts(seats, seed, play_seed, away, gap):
    options = {"countdown_ms": 500, "round_limit_ms": 3000, "reveal_ms": 300}
    play_and_check("race", seats, seed, play_seed, options, 100, away_chance=away, max_gap_ms=gap)


@SETTINGS
@given(
    seats=st.integers(2, 4),
    seed=seeds,
    play_seed=seeds,
    away=st.sampled_from([0, 12]),
    window=st.sampled_from([0, 700, 1500]),
    turn_limit=st.sampled_from([0, 2500]),
)
def test_knock_lists_exactly_what_apply_accepts(seats, seed, play_seed, away, window, turn_limit):
    options = {"knock_window_ms": window, "turn_limit_ms": turn_limit, "away_limit_ms": 4000}
    play_and_check(
        "knock",
        seats,
        seed,
        play_seed,
        options,
        100,
        away_chance=away,
        max_gap_ms=1000,
        weights={"knock": 1},
        default_weight=8,
    )


def test_the_knock_window_is_met_on_both_sides():
    # Guards the property above against testing nothing: a game whose roll is not listed
    # just before roll_from, and is listed (and applies) at it.
    game, log = play_and_check("knock", 2, 3, 4, {"knock_window_ms": 1500}, 60, max_gap_ms=1000)
    replayed = new_game("knock", 2, 3, {"knock_window_ms": 1500}, start_ms=100)
    windows = 0
    for event in log:
        if replayed.stage == "roll" and replayed.roll_from is not None:
            edge = replayed.roll_from
            turn = replayed.turn
            if edge - 1 >= replayed.now:
                assert {"type": "roll"} not in replayed.legal_actions(turn, edge - 1)
                windows += 1
            assert {"type": "roll"} in replayed.legal_actions(turn, max(edge, replayed.now))
        replayed.apply(event["seat"], event["action"], event["t"])
    assert windows > 0
