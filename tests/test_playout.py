"""random_playout: generic over rulesets, reproducible, and stamping time like the host."""

import importlib.util

import pytest

from kismet_tui.rules import HOST, RULESETS, IllegalAction, SeededRNG, new_game, replay
from kismet_tui.rules.base import Game, check
from kismet_tui.rules.playout import random_playout

AVAILABLE = [name for name, module in RULESETS.items() if importlib.util.find_spec(module)]


def header(ruleset, seats, seed, options=None, t0=0):
    return {"ruleset": ruleset, "seats": seats, "seed": seed, "options": options or {}, "t0": t0}


def check_stamping(ruleset, seats, seed, log, options=None, t0=0):
    """Replay the log event by event, checking what a host guarantees about its stamps."""
    game = new_game(ruleset, seats, seed, options, start_ms=t0)
    last = t0
    for number, event in enumerate(log, start=1):
        assert event["seq"] == number
        assert event["t"] >= last, "time went backwards"
        deadline = game.next_deadline()
        if event["seat"] != HOST:
            assert deadline is None or event["t"] < deadline, "a move stamped past a deadline"
        elif event["action"]["type"] == "timeout":
            assert event["t"] == max(deadline, last), "a timeout stamped late"
        game.apply(event["seat"], event["action"], event["t"])
        last = event["t"]
    return game


@pytest.mark.parametrize("ruleset", AVAILABLE)
@pytest.mark.parametrize("seats", [2, 4])
def test_every_ruleset_plays_to_the_end_and_replays(ruleset, seats):
    for seed in (1, 2):
        game = new_game(ruleset, seats, seed, start_ms=500)
        log = random_playout(game, SeededRNG(seed), away_chance=25)
        assert game.finished
        replayed = check_stamping(ruleset, seats, seed, log, t0=500)
        assert replayed.digest() == game.digest()
        assert replay(header(ruleset, seats, seed, t0=500), log).digest() == game.digest()


def test_same_rng_same_log_and_another_rng_another_game():
    logs = []
    for moves in (7, 7, 8):
        game = new_game("dice", 3, b"same table")
        logs.append(random_playout(game, SeededRNG(moves)))
    assert logs[0] == logs[1] and logs[0] != logs[2]


def test_timeouts_are_stamped_at_the_deadline_and_moves_never_past_it():
    options = {"turn_limit_ms": 1000}
    game = new_game("dice", 2, 3, options)
    log = random_playout(game, SeededRNG(3), max_gap_ms=600)
    timeouts = [e for e in log if e["action"]["type"] == "timeout"]
    assert timeouts, "with 600 ms pauses and a 1 s turn limit some turns must time out"
    check_stamping("dice", 2, 3, log, options)


def test_max_steps_stops_early_and_first_seq_numbers_the_log():
    game = new_game("dice", 2, 1)
    log = random_playout(game, SeededRNG(1), max_steps=5, first_seq=41)
    assert [e["seq"] for e in log] == [41, 42, 43, 44, 45] and not game.finished


class Countdown(Game):
    """A toy ruleset that knows nothing of dice or cards: each seat may `tick` until the host
    stamps the timeout at start + 1000 ms, which ends the game. `early` is refused before
    300 ms, like knock's roll during the knock window, and listed from then on."""

    RULESET = "countdown"

    def __init__(self, seats=2):
        super().__init__(seats, {}, SeededRNG(1), start_ms=0)
        self.ticks = [0] * seats
        self.early_at = None
        self.over = False

    def _player_actions(self, seat, t_ms):
        if self.over:
            return []
        return [{"type": "tick"}] + ([{"type": "early"}] if t_ms >= 300 else [])

    def _act_tick(self, seat, action, t_ms):
        check(not self.over, "Over.")
        self.ticks[seat] += 1

    def _act_early(self, seat, action, t_ms):
        check(t_ms >= 300, "Too early.")
        check(not self.over, "Over.")
        self.early_at = t_ms

    def next_deadline(self):
        return None if self.over else 1000

    def _on_timeout(self, t_ms):
        self.over = True
        return [{"type": "over"}]

    def result(self):
        return {"scores": self.ticks, "winners": []} if self.over else None

    def snapshot(self):
        return {"ticks": self.ticks, "over": self.over, "early_at": self.early_at}


def test_generic_over_any_game_of_the_contract():
    game = Countdown()
    log = random_playout(game, SeededRNG(4), max_gap_ms=50)
    assert game.finished and log[-1]["action"] == {"type": "timeout"} and log[-1]["t"] == 1000
    assert all(e["t"] < 1000 for e in log[:-1])
    assert all(e["t"] >= 300 for e in log if e["action"]["type"] == "early")
    assert sum(game.ticks) == sum(1 for e in log if e["action"]["type"] == "tick")


def test_a_refused_listed_move_is_an_error():
    class Sloppy(Countdown):
        """Lists `early` from the start although apply refuses it before 300 ms."""

        def _player_actions(self, seat, t_ms):
            return [] if self.over else [{"type": "tick"}, {"type": "early"}]

    with pytest.raises(IllegalAction, match="Too early"):
        for seed in range(20):  # some seed picks `early` before 300 ms
            random_playout(Sloppy(), SeededRNG(seed), max_gap_ms=50)


def test_a_move_legal_only_later_waits_for_its_time():
    class Late(Countdown):
        """Only `early` exists, from 300 ms on: the playout must let the time pass."""

        def _player_actions(self, seat, t_ms):
            return [] if self.over or t_ms < 300 else [{"type": "early"}]

        def next_deadline(self):
            return None  # nothing else can happen: the idle pauses must reach 300 ms

        def _act_early(self, seat, action, t_ms):
            super()._act_early(seat, action, t_ms)
            self.over = True

    for gap in (0, 7, 400):
        game = Late()
        log = random_playout(game, SeededRNG(gap), max_gap_ms=gap)
        assert game.over and game.early_at >= 300
        assert [e["action"]["type"] for e in log] == ["early"] and log[0]["t"] >= 300


def test_a_game_with_no_move_and_no_deadline_is_reported_stuck():
    class Stuck(Countdown):
        def _player_actions(self, seat, t_ms):
            return []

        def next_deadline(self):
            return None

    with pytest.raises(RuntimeError, match="stuck"):
        random_playout(Stuck(), SeededRNG(1))


def test_weights_steer_the_choice_by_action_type():
    # Weight 0 for scoring: a dice turn can then only roll, up to its third roll, and the
    # playout must get stuck rather than pick a move it was told never to pick.
    game = new_game("dice", 1, 5, {"turn_limit_ms": 0}, start_ms=0)  # (no timeout to score)
    with pytest.raises(RuntimeError):
        random_playout(game, SeededRNG(1), weights={"score": 0})
    assert game.view(0)["rolls_used"] == 3 and not any(game.view(0)["cards"][0].values())


@pytest.mark.parametrize("seats", [4, 8])
def test_knock_games_of_many_seats_end_when_knocks_are_rare(seats):
    # Uniform random knocking never ends a game of 3+ seats (wrong knocks undo lays faster
    # than lays are made); the benchmark's style, knocks weighing 1 against 24, plays real games.
    for seed in range(3):
        game = new_game("knock", seats, seed, start_ms=0)
        log = random_playout(
            game, SeededRNG(seed), max_steps=5_000, weights={"knock": 1}, default_weight=24
        )
        assert game.finished, f"seed {seed}: not over after {len(log)} events"
        header = {"ruleset": "knock", "seats": seats, "seed": seed, "options": {}, "t0": 0}
        assert replay(header, log).digest() == game.digest()
