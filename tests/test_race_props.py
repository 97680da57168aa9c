"""Random legal race games (random stamp times and timeouts, players dropping and returning):
every game ends, replays to the same digest, conserves its cards at every step, and every
refused action leaves the digest as it was."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from kismet_tui.rules import Refusal, SeededRNG, new_game, replay
from kismet_tui.rules.playout import random_playout
from protocol.actions import build_action

# Actions of every shape and seat, mostly nonsense, some legal: what a buggy or hostile
# client might send (built at the edge, as the host builds them, before the engine judges
# them). Drawn from a SeededRNG so a failing example replays.
PROBE_TYPES = (
    "grab",
    "pass",
    "timeout",
    "away",
    "back",
    "roll",
    "lay",
    "knock",
    "prelay",
    "reveal",
    "nonsense",
)
ODD_VALUES = (-1, 0, 1, 5, 10, 11, 12, 99, None, "3", True, [1])


def random_probe(rng, game):
    """One (seat, action, t) drawn at random, often illegal."""
    kind = PROBE_TYPES[rng.below(len(PROBE_TYPES))]
    action = {"type": kind}
    for key in ("card", "id", "seat", "extra", "cards", "salt", "commit"):
        if rng.below(3) == 0:
            action[key] = ODD_VALUES[rng.below(len(ODD_VALUES))]
    seat = rng.below(game.seats + 2) - 1  # HOST (-1) .. one past the last seat
    t = game.now + rng.below(4000) - 200  # sometimes earlier than the last event
    return seat, action, t


def check_refusals_change_nothing(game, rng, probes=2):
    for _ in range(probes):
        seat, action, t = random_probe(rng, game)
        trial = copy.deepcopy(game)
        before = trial.digest()
        try:
            trial.apply(seat, build_action(game.RULESET, action), t)
        except Refusal as refusal:
            assert refusal.words and trial.digest() == before, (seat, action, t)


def replay_checking_every_step(header, log, invariant, probe_seed):
    """Apply the log event by event to a fresh game, checking `invariant` and probing with
    random actions before each event; return the rebuilt game."""
    game = new_game(
        header["ruleset"], header["seats"], header["seed"], header["options"], start_ms=header["t0"]
    )
    probes = SeededRNG(probe_seed)
    invariant(game)
    for event in log:
        check_refusals_change_nothing(game, probes)
        game.apply(event["seat"], event["action"], event["t"])
        invariant(game)
    return game


def race_cards_are_conserved(game):
    circle = [c for c in game.circle if c is not None]
    held = [c for pile in game.winning for c in pile]
    assert sorted(circle + game.unseen + game.under + held + game.removed) == list(
        range(11 * game.seats)
    )
    if game.phase in ("countdown", "grabbing"):
        assert len(circle) == 11  # a round always starts with a full circle


timing = st.fixed_dictionaries(
    {
        "countdown_ms": st.integers(0, 3000),
        "round_limit_ms": st.integers(500, 6000),
        "reveal_ms": st.integers(0, 2000),
    }
)


@settings(max_examples=20, deadline=None)
@given(
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    play_seed=st.integers(0, 2**32),
    options=timing,
    gap=st.integers(0, 3000),
    away=st.sampled_from([0, 12]),
)
def test_random_race_games_end_replay_and_conserve_cards(
    seats, seed, play_seed, options, gap, away
):
    header = {"ruleset": "race", "seats": seats, "seed": seed, "options": options, "t0": 7}
    game = new_game("race", seats, seed, options, start_ms=7)
    log = random_playout(
        game, SeededRNG(play_seed), max_steps=20_000, max_gap_ms=gap, away_chance=away
    )
    assert game.finished, f"not over after {len(log)} events"
    result = game.result()
    assert max(result["scores"]) == result["scores"][result["winners"][0]]
    rebuilt = replay_checking_every_step(header, log, race_cards_are_conserved, play_seed + 1)
    assert rebuilt.digest() == game.digest()
    assert replay(header, log).digest() == game.digest()
    assert rebuilt.view(0) == game.view(0)
