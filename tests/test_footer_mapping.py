"""The footer's promise, on the pure mapping the game screens use (kismet_tui/screens/offers.py:
`offered` decides which game keys the footer shows, `effect` says what each does), over
thousands of states: every state of seeded random playouts of every game, for every seat, at
the moment the next move came and (in knock) just after the last one while the knock window
may be open, with the player's own choices on the screen varied (dice held, the box chosen,
cards picked to lay in advance, a joker throw's first card). In each:

- every kind of move the engine lists for the seat has its entry in the footer;
- every key behind a shown entry does what it says: sends a move the engine accepts, or
  commits to a pre-lay the engine accepts, or changes the player's choices, or asks for a
  hint (never only words of refusal);
- every game key not behind a shown entry does nothing the engine would accept: a key the
  screen does not offer stands for a move the engine refuses (nothing legal is hidden), and
  one it offers beyond the entry (a letter of a place already grabbed) sends nothing
  accepted and changes nothing.

That the app does what the mapping says (its footer, its buttons, its keys pressed) is
tests/test_ui_footer_walk.py, through Pilot in a few states of every game.
"""

from __future__ import annotations

import pytest

from kismet_tui.rules import SeededRNG, new_game
from kismet_tui.rules.playout import random_playout
from kismet_tui.screens.offers import (
    Choose,
    Commit,
    Say,
    Seen,
    Send,
    Think,
    effect,
    offered,
    open_boxes,
)
from tests.footer_util import (
    entries_the_engine_needs,
    game_bindings,
    keys_behind,
    prelay_action,
    refusal_of,
)
from tests.scripted import OPTIONS

T0 = 1_000_000
# (ruleset, seats, playouts, the playout's weights): a 4-seat knock game with uniform choice
# never ends (random_playout's docstring), so its knocks weigh less.
GAMES = [
    ("dice", ["Ana"], 3, None),
    ("dice", ["Ana", "Bo"], 2, None),
    ("race", ["Ana", "Bo", "Cy"], 3, None),
    ("race", ["Ana", "Bo", "Cy", "Di"], 2, None),
    ("knock", ["Ana", "Bo", "Cy"], 3, None),
    ("knock", ["Ana", "Bo", "Cy", "Di"], 2, {"knock": 1}),
]
MAX_EVENTS = 400  # of each playout (a race or knock game runs long; its phases recur early)


def choices(ruleset: str, seen: Seen) -> list[Seen]:
    """The state as the screen may hold it: the player's own choices varied."""
    view, legal = seen.view, seen.legal
    if ruleset == "dice":
        helds = [frozenset()]
        if view.get("dice"):
            helds += [frozenset({pos}) for pos in range(5)]
            helds += [frozenset({0, 2, 3}), frozenset(range(5))]
        # The box enter scores in: while the seat may score, an open box (the best, until
        # the player moves it), else none (DiceScreen.redraw).
        scoring = seen.seat is not None and view.get("your_turn") and view.get("can_score")
        cursors = open_boxes(view) if scoring else [None]
        return [
            Seen(seen.seat, view, legal, held=held, cursor=cursor, advisor=advisor)
            for held in helds
            for cursor in cursors
            for advisor in (True, False)
            if advisor or not held  # (the hint's advisor matters alone)
        ]
    if ruleset == "knock":
        mine = [card["number"] for card in view["players"][seen.seat]["open"]]
        variants = [seen]
        if any(a["type"] == "prelay" for a in legal):
            variants += [Seen(seen.seat, view, legal, chosen=(n,)) for n in mine]
            variants += [Seen(seen.seat, view, legal, chosen=tuple(mine[:2]))]
        roll = view.get("roll")
        if roll is not None and roll["joker"] and {"type": "pass"} in legal:
            variants += [
                Seen(seen.seat, view, legal, joker_first=n) for n in mine if n in roll["targets"]
            ]
        return variants
    return [seen]


def problems(ruleset: str, game, seen: Seen, t: int) -> list[str]:
    """What breaks the footer's promise in this state (empty: nothing)."""
    seat, view, legal = seen.seat, seen.view, seen.legal
    where = (
        f"{ruleset} seat {seat} at {t} ({view.get('phase')}; held {sorted(seen.held)}, box "
        f"{seen.cursor}, picked {seen.chosen}, joker's first {seen.joker_first})"
    )
    rows = game_bindings(ruleset)
    action_of = {key: (name, params) for key, name, params, _show in rows}
    shown = [
        key for key, name, params, show in rows if show and offered(ruleset, name, params, seen)
    ]
    found = []
    missing = entries_the_engine_needs(ruleset, legal, seen.held) - set(shown)
    if missing:
        found.append(f"{where}: the engine takes {legal} but the footer ({shown}) hides {missing}")

    def accepted(action) -> bool:
        """The engine's verdict: legal_actions lists every move in its plain spelling, the one
        the keys send (tests/test_legal_actions_exact.py); a pre-lay's commitment is tried."""
        if action["type"] != "prelay":
            return action in legal
        return refusal_of(game, seat, action, t) is None

    behind = [
        key
        for entry in shown
        for key in keys_behind(entry, ruleset, view, seat, seen.chosen, seen.joker_first)
    ]
    for key in behind:
        name, params = action_of[key]
        if not offered(ruleset, name, params, seen):
            found.append(f"{where}: key {key} is behind a shown entry but does not act")
            continue
        done = effect(ruleset, name, params, seen)
        if isinstance(done, Send) and not accepted(done.action):
            found.append(f"{where}: key {key} sends {done.action}, which the engine refuses")
        elif isinstance(done, Commit) and not accepted(prelay_action(done.cards)):
            found.append(f"{where}: key {key} commits to {done.cards}, which the engine refuses")
        elif isinstance(done, Choose) and done.seen == seen:
            found.append(f"{where}: key {key} does nothing")
        elif isinstance(done, Think) and not legal:
            found.append(f"{where}: key {key} asks for a hint with no move to make")
        elif isinstance(done, Say):
            found.append(f"{where}: key {key} is shown but refuses: {done.words}")
    for key, (name, params) in action_of.items():
        if key in behind or name == "choose":  # (choose is a click's, no key's)
            continue
        done = effect(ruleset, name, params, seen)
        if isinstance(done, Send) and accepted(done.action):
            found.append(f"{where}: hidden key {key} stands for {done.action}, which is legal")
        elif isinstance(done, Commit) and accepted(prelay_action(done.cards)):
            found.append(f"{where}: hidden key {key} commits to {done.cards}, which is legal")
        elif (
            offered(ruleset, name, params, seen) and isinstance(done, Choose) and done.seen != seen
        ):
            found.append(f"{where}: key {key}, not behind the footer's entries, changes the screen")
    return found


@pytest.mark.parametrize("ruleset, names, playouts, weights", GAMES)
def test_every_shown_key_does_what_it_says_in_every_state(ruleset, names, playouts, weights):
    states = 0
    found: list[str] = []
    for number in range(playouts):
        seed = f"footer-{ruleset}-{len(names)}-{number}".encode()
        options = OPTIONS[ruleset]
        full = new_game(ruleset, names, seed, options, start_ms=T0)
        kwargs = {"weights": weights, "default_weight": 24} if weights else {}
        playout = random_playout(
            full, SeededRNG(seed + b"-play"), max_gap_ms=2500, max_steps=MAX_EVENTS, **kwargs
        )
        game = new_game(ruleset, names, seed, options, start_ms=T0)
        last_t = T0
        for event in [*playout, None]:
            clocks = {last_t} if event is None else {event["t"]}
            if ruleset == "knock" and event is not None:
                clocks.add(last_t)  # the knock window may still be open
            for t in sorted(clocks):
                for seat in range(len(names)):
                    at = Seen(seat, game.view(seat), game.legal_actions(seat, max(t, game.now)))
                    for seen in choices(ruleset, at):
                        found += problems(ruleset, game, seen, max(t, game.now))
                        states += 1
            if event is None:
                break
            game.apply(event["seat"], event["action"], event["t"])
            last_t = event["t"]
    print(f"{ruleset} for {len(names)}: {states} states")
    assert not found, f"{len(found)} problems, the first: " + "\n".join(found[:5])
    assert states > 1000, "the walk saw hardly any state: it tests nothing"
