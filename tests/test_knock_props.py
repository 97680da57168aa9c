"""Random legal knock games: every game ends, replays to the same digest, each player's cards
stay their own 11 at every step, and every refused action leaves the digest as it was.

The shared `random_playout` drives 2-seat games (it lets the knock window [D15] pass, since
`legal_actions` lists the roll only once the window is over). It picks uniformly among every
seat's actions, so with 3 or more seats the knocks of the other players outnumber the
roller's lays, and wrong knocks give cards back faster than lays take them: such games
practically never end. So
`playout_through_windows` below drives 2 to 5 seats the way people knock, picking a knock
only about one time in six; it also tries rolls inside the window at random and checks
that they are refused without effect.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from kismet_tui.rules import HOST, IllegalAction, SeededRNG, new_game, replay
from kismet_tui.rules.playout import candidates, random_playout
from tests.rules_util import replay_checking_every_step

ALL = list(range(2, 13))


def each_player_keeps_their_eleven(game):
    for seat in range(game.seats):
        assert sorted(game.open[seat] + game.laid[seat]) == ALL
        assert game.open[seat] == sorted(game.open[seat])
    if game.phase == "play":
        assert 0 <= game.turn < game.seats


def playout_through_windows(game, rng, max_steps, max_gap_ms, away_chance):
    """Random play like `random_playout`, picking among `legal_actions` at each move's stamp,
    but now and then the turn's seat also tries to roll inside the knock window: that roll
    must be refused, change nothing, and not be logged (one try per window at most)."""
    log, t, refusals, tried = [], game.now, 0, None
    while not game.finished and len(log) < max_steps:
        deadline = game.next_deadline()
        # Several knocks often land in the same millisecond: stamp order alone decides.
        at = t + (0 if rng.below(4) == 0 else rng.below(max_gap_ms + 1))
        if deadline is not None and at >= deadline:
            at = max(t, deadline)
            moves = [(HOST, {"type": "timeout"})]
        else:
            moves = candidates(game, at)
            if deadline is not None and rng.below(len(moves) + 1) == 0:
                # The others are slow: the deadline comes first.
                at, moves = deadline, [(HOST, {"type": "timeout"})]
        if away_chance and rng.below(away_chance) == 0:
            who = rng.below(game.seats)
            moves = [(HOST, {"type": "back" if game.away[who] else "away", "seat": who})]
        early = (
            game.phase == "play"
            and game.stage == "roll"
            and not game.away[game.turn]
            and game.roll_from is not None
            and at < game.roll_from
        )
        if early and tried != (game.round, game.roll_count) and rng.below(2) == 0:
            tried = (game.round, game.roll_count)  # one early try per window
            before = game.digest()
            try:
                game.apply(game.turn, {"type": "roll"}, at)
            except IllegalAction as refusal:
                assert "others may still knock" in refusal.words
            else:
                raise AssertionError(f"a roll at {at} inside the window to {game.roll_from}")
            assert game.digest() == before
            assert {"type": "roll"} not in game.legal_actions(game.turn, at)
            refusals += 1
            t = at
            continue
        calm = [m for m in moves if m[1]["type"] != "knock"]
        if rng.below(6) != 0:
            moves = calm
        if not moves:
            # Nothing to do but knock (inside the knock window): the players wait a while,
            # at most to the window's end, as they would for a refused roll.
            end = game.roll_from if early else at
            t = max(t + 1, at + rng.below(max(0, end - at) + 1))
            continue
        seat, action = moves[rng.below(len(moves))]
        game.apply(seat, action, at)
        log.append({"seq": len(log) + 1, "t": at, "seat": seat, "action": action})
        t = at
    return log, refusals


options = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 2),
        "away_limit_ms": st.integers(0, 4000),
        "turn_limit_ms": st.sampled_from([0, 0, 2500]),
    }
)


def check_log(header, game, log):
    assert game.finished, f"not over after {len(log)} events"
    result = game.result()
    assert len(result["round_scores"]) == header["options"]["rounds"]
    assert result["scores"] == [-m for m in result["minus_points"]]
    rebuilt = replay_checking_every_step(
        header, log, each_player_keeps_their_eleven, header["seed"] + 1
    )
    assert rebuilt.digest() == game.digest()
    assert replay(header, log).digest() == game.digest()


@settings(max_examples=15, deadline=None)
@given(
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    play_seed=st.integers(0, 2**32),
    opts=options,
    window=st.integers(1, 2000),
    gap=st.integers(1, 2500),
    away=st.sampled_from([0, 15]),
)
def test_random_knock_games_with_a_knock_window(seats, seed, play_seed, opts, window, gap, away):
    opts = dict(opts, knock_window_ms=window)
    header = {"ruleset": "knock", "seats": seats, "seed": seed, "options": opts, "t0": 3}
    game = new_game("knock", seats, seed, opts, start_ms=3)
    log, _ = playout_through_windows(game, SeededRNG(play_seed), 20_000, gap, away)
    check_log(header, game, log)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    play_seed=st.integers(0, 2**32),
    opts=options,
    window=st.sampled_from([0, 1500]),
    gap=st.integers(0, 2500),
    away=st.sampled_from([0, 15]),
)
def test_random_two_seat_knock_games_through_the_shared_playout(
    seed, play_seed, opts, window, gap, away
):
    opts = dict(opts, knock_window_ms=window)
    header = {"ruleset": "knock", "seats": 2, "seed": seed, "options": opts, "t0": 0}
    game = new_game("knock", 2, seed, opts)
    log = random_playout(
        game, SeededRNG(play_seed), max_steps=20_000, max_gap_ms=gap, away_chance=away
    )
    check_log(header, game, log)


def test_early_rolls_really_happen_in_the_window_playout():
    # Guards the property test above against testing nothing: its games do meet the window.
    game = new_game("knock", 3, 5, {"knock_window_ms": 1500})
    _, refusals = playout_through_windows(game, SeededRNG(9), 20_000, 1000, 0)
    assert game.finished and refusals > 0
