"""Helpers shared by the engine tests."""

import copy

import pytest

from kismet_tui.rules import HOST, Refusal, SeededRNG, cards, new_game
from kismet_tui.rules.rng import CHANCE_VERSION, chance_seed, commitment
from protocol.actions import build_action


def refused(g, seat, action, words, t=None):
    """Assert the action is refused with `words` in the reason and changes nothing. It enters
    the engine as every action does: built at the edge (protocol/actions.py), which refuses
    a field the declarations do not allow before the engine judges the rest."""
    before = g.digest()
    with pytest.raises(Refusal) as caught:
        g.apply(seat, build_action(g.RULESET, action), g.now if t is None else t)
    assert words in caught.value.words
    assert g.digest() == before


def seed_for_first_roller(seats, first):
    """A seed whose first draw, below(seats) [D14], is `first`."""
    return next(f"knock-{i}" for i in range(1000) if SeededRNG(f"knock-{i}").below(seats) == first)


SERVER_SEED = bytes(range(32))  # 000102...1f


ENTROPY = [bytes([0xAA]) * 16]  # one seat


def vector_game(version: int = CHANCE_VERSION, entropy=ENTROPY):
    """A solo dice game: each turn one roll, then the best box. Returns header, events, end."""
    rng = SeededRNG(chance_seed(SERVER_SEED, entropy, version))
    game = new_game("dice", ["Ana"], None, {}, rng=rng, start_ms=1000)
    header = {
        "ruleset": "dice",
        "seats": ["Ana"],
        "options": game.options,
        "t0": 1000,
        "commit": commitment(SERVER_SEED, version),
        "entropy": entropy,
        "chance": rng.take_drawn(),
    }
    if version >= 3:
        header["version"] = version  # a version-2 header has none
    events = []
    while not game.finished:
        action = (
            {"type": "roll", "hold": []}
            if game.rolls == 0
            else {"type": "score", "box": game.best_box()}
        )
        t = 1000 + 100 * (len(events) + 1)
        game.apply(0, action, t)
        event = {"seq": len(events) + 1, "t": t, "seat": 0, "action": action}
        chance = rng.take_drawn()
        if chance:
            event["chance"] = chance
        events.append(event)
    return header, events, {"result": game.result(), "server_seed": SERVER_SEED}, game


TIMEOUT = {"type": "timeout"}


def arrange(g, numbers):
    """Test set-up: put cards with these numbers (lowest set first) in the circle, in order;
    every other card goes to the pile's unseen part [D19]. Conservation still holds."""
    pool = [c for c in g.circle if c is not None] + g.unseen + g.under
    pool.sort()
    chosen = []
    for n in numbers:
        card = next(c for c in pool if cards.number_of(c) == n and c not in chosen)
        chosen.append(card)
    g.circle = chosen + [None] * (cards.CIRCLE_SIZE - len(chosen))
    g.unseen = [c for c in pool if c not in chosen]
    g.under = []


def roll_now(g):
    """The host rolls at the countdown's deadline."""
    return g.apply(HOST, TIMEOUT, g.next_deadline())


def grab(g, seat, pos, t=None):
    return g.apply(seat, {"type": "grab", "card": pos}, g.now if t is None else t)


# A circle with no 2, 4 or 12: a joker throw of 1s, 2s or 6s matches nothing.
NO_2_4_12 = [3, 3, 5, 5, 6, 7, 8, 9, 10, 11, 11]


# Actions of every shape and seat, mostly nonsense, some legal: what a buggy or hostile
# client might send. Drawn from a SeededRNG so a failing example replays.
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
