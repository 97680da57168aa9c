"""Random legal race games (random stamp times and timeouts, players dropping and returning):
every game ends, replays to the same digest, conserves its cards at every step, and every
refused action leaves the digest as it was."""

from hypothesis import given, settings
from hypothesis import strategies as st

from kismet_tui.rules import SeededRNG, new_game, replay
from kismet_tui.rules.playout import random_playout
from tests.rules_util import replay_checking_every_step


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
