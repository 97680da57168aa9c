"""Every turn has a limit, idle seats are played at once, and the engines list the clocks that
run (docs/rules.md [D31]). The engines stay pure: limits are options, the host's timeout and
the idle mark are stamped events."""

from kismet_tui.rules import HOST, ScriptedRNG, new_game
from tests.rules_util import refused, seed_for_first_roller

TIMEOUT = {"type": "timeout"}


def dice(options=None, dice_values=(), start_ms=0):
    """Two seats; the roll-off [6, 1] makes seat 0 start."""
    return new_game(
        "dice",
        2,
        seed=b"t",
        options=options,
        rng=ScriptedRNG([6, 1] + list(dice_values)),
        start_ms=start_ms,
    )


def knock(options=None, dice_values=(), start_ms=0):
    """Two seats past their (empty) pre-lays; seat 0 throws first."""
    g = new_game(
        "knock",
        2,
        seed=b"t",
        options=options,
        start_ms=start_ms,
        rng=ScriptedRNG(list(dice_values), seed=seed_for_first_roller(2, 0)),
    )
    g.apply(HOST, TIMEOUT, g.next_deadline())  # nobody committed: empty pre-lays
    assert g.phase == "play" and g.turn == 0
    return g


def test_every_turn_has_a_limit_by_default():
    assert new_game("dice", 2, seed=b"t").next_deadline() == 60_000
    g = knock(start_ms=0)
    assert g.next_deadline() == g.turn_started + 30_000 == 60_000  # after the 30 s pre-lay
    assert g.options["turn_limit_ms"] == 30_000


def test_the_dice_clock_and_why_the_host_played():
    g = dice(dice_values=[1, 2, 3, 4, 6], start_ms=1000)
    assert g.view(1)["clocks"] == [{"kind": "turn", "seat": 0, "until": 61_000}]
    notes = g.apply(HOST, TIMEOUT, 61_000)
    assert notes[0] == {"type": "timeout", "seat": 0, "why": "turn_limit", "limit_ms": 60_000}
    assert notes[2]["type"] == "scored" and g.current == 1


def test_an_idle_seat_is_played_at_once_and_is_back_on_its_action():
    g = dice(dice_values=[1, 2, 3, 4, 6] * 2)
    plain = g.digest()
    g.apply(HOST, {"type": "away", "seat": 1, "idle": True}, 500)
    assert g.view(0)["idle"] == [False, True]
    assert g.next_deadline() == 60_000  # seat 0's turn: its own limit
    g.apply(0, {"type": "roll", "hold": []}, 1000)
    g.apply(0, {"type": "score", "box": "sixes"}, 2000)
    assert g.next_deadline() == 2000  # seat 1's turn: at once
    assert {"kind": "away", "seat": 1, "until": 2000} in g.view(0)["clocks"]
    notes = g.apply(HOST, TIMEOUT, 2000)
    assert notes[0] == {"type": "timeout", "seat": 1, "why": "idle", "limit_ms": 0}
    g.apply(HOST, {"type": "back", "seat": 1}, 2500)
    assert g.view(0)["idle"] == [False, False]
    # The digest of a game with no idle seat is what it was before idle seats existed.
    assert "idle" not in g.snapshot() and plain == dice(dice_values=[1]).digest()


def test_the_away_note_says_idle_and_a_bad_mark_is_refused():
    g = dice()
    refused(g, HOST, {"type": "away", "seat": 1, "idle": "yes"}, "'idle' must be true or false.")
    assert g.apply(HOST, {"type": "away", "seat": 1, "idle": True}, 0) == [
        {"type": "away", "seat": 1, "idle": True}
    ]
    assert "idle" in g.snapshot()


def test_knock_clocks_show_the_window_the_turn_and_the_away_limit():
    g = knock(options={"knock_window_ms": 1500, "turn_limit_ms": 20_000}, dice_values=[1, 1, 1])
    t = g.now
    g.apply(0, {"type": "roll"}, t + 100)
    g.apply(0, {"type": "pass"}, t + 200)  # seat 1 may throw from t + 1700
    g.apply(HOST, {"type": "away", "seat": 1}, t + 300)
    assert g.view(0)["clocks"] == [
        {"kind": "knock_window", "seat": None, "until": t + 1700},
        {"kind": "turn", "seat": 1, "until": t + 200 + 20_000},
        {"kind": "away", "seat": 1, "until": t + 300 + 30_000},
    ]
    notes = g.apply(HOST, TIMEOUT, t + 20_200)
    assert notes[0] == {"type": "default_play", "seat": 1, "why": "turn_limit", "limit_ms": 20_000}


def test_an_idle_knock_seat_waits_only_for_the_knock_window():
    g = knock(dice_values=[1, 1, 1, 2, 2, 2])
    t = g.now
    g.apply(HOST, {"type": "away", "seat": 1, "idle": True}, t)
    g.apply(0, {"type": "roll"}, t + 100)
    g.apply(0, {"type": "pass"}, t + 200)
    assert g.next_deadline() == t + 1700  # the window, then the host plays for seat 1
    notes = g.apply(HOST, TIMEOUT, t + 1700)
    assert notes[0] == {"type": "default_play", "seat": 1, "why": "idle", "limit_ms": 0}


def test_the_prelay_clock():
    g = new_game("knock", 2, seed=b"t", start_ms=100)
    assert g.view(0)["clocks"] == [{"kind": "prelay", "seat": None, "until": 30_100}]
