"""The simple bot levels play every game legally to its end, deterministically per seed
(driven through the engine directly, no network: the runner is covered by the server tests)."""

import pytest

from kismet_tui.bots import POLICIES, make_policy
from kismet_tui.rules import GAMES, HOST, IllegalAction, knock, new_game

OPTIONS = {
    "dice": {},
    "race": {"countdown_ms": 100, "round_limit_ms": 1000, "reveal_ms": 100},
    "knock": {"knock_window_ms": 100, "rounds": 2},
}


def play(ruleset, level, seats=3, seed=7, max_steps=5000):
    """Each step: every seat's policy decides; the earliest wanted action is applied (a
    pre-lay goes through the real commit-reveal); deadlines are stamped by the host."""
    game = new_game(ruleset, seats, seed, OPTIONS[ruleset], start_ms=1000)
    policies = [make_policy(ruleset, level, seat, seed * 10 + seat) for seat in range(seats)]
    secrets = {}
    actions = 0
    for _ in range(max_steps):
        if game.finished:
            return game, actions
        now = game.now
        wanted = []
        for seat in range(seats):
            if (
                ruleset == "knock"
                and game.phase == "prelay_reveal"
                and seat in secrets
                and game.reveals[seat] is None
            ):
                wanted.append((now, seat, {"type": "reveal", "cards": secrets[seat], "salt": "ab"}))
                continue
            choice = policies[seat].decide(game, seat, now)
            if choice is not None:
                delay, action = choice
                assert delay >= 0
                wanted.append((now + delay, seat, action))
        deadline = game.next_deadline()
        if wanted:
            at, seat, action = min(wanted, key=lambda w: (w[0], w[1]))
            if deadline is None or at < deadline:
                if action["type"] == "prelay":
                    secrets[seat] = action["cards"]
                    action = {
                        "type": "prelay",
                        "commit": knock.prelay_commitment(action["cards"], "ab"),
                    }
                try:
                    game.apply(seat, action, at)
                except IllegalAction as exc:
                    # Only a knock-game roll sent into the knock window may be refused.
                    assert ruleset == "knock" and action["type"] == "roll", exc.words
                    raise
                actions += 1
                continue
        assert deadline is not None, "no bot wants to move and nothing is waiting on time"
        game.apply(HOST, {"type": "timeout"}, max(deadline, now))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("ruleset", GAMES)
@pytest.mark.parametrize("level", ["random", "greedy"])
def test_simple_levels_play_every_game_legally_to_the_end(ruleset, level):
    game, actions = play(ruleset, level)
    assert game.finished and actions > 0
    result = game.result()
    assert len(result["scores"]) == 3


@pytest.mark.parametrize("ruleset", GAMES)
def test_a_bot_is_deterministic_per_seed(ruleset):
    first, _ = play(ruleset, "random", seed=11)
    second, _ = play(ruleset, "random", seed=11)
    assert first.digest() == second.digest()


def test_greedy_beats_random_at_dice_on_average():
    greedy = sum(play("dice", "greedy", seats=1, seed=s)[0].result()["scores"][0] for s in range(6))
    rand = sum(play("dice", "random", seats=1, seed=s)[0].result()["scores"][0] for s in range(6))
    assert greedy > rand


def test_unknown_level_is_refused_in_words():
    with pytest.raises(KeyError, match="no bot level 'genius'"):
        make_policy("dice", "genius", 0, 1)
    assert {"random", "greedy"} <= set(POLICIES)
