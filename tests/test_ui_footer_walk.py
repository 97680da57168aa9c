"""The app does what the footer's mapping says (issue 21 point 5, issue 24 point 2, issue 34):
the footer's promise itself (every key shown does what it says, every kind of move the engine
lists has its key, a hidden key does nothing the engine accepts) is checked on the pure
mapping over thousands of states (tests/test_footer_mapping.py, kismet_tui/screens/offers.py);
here the real app, driven through Pilot along a seeded random playout of each game, is
checked to agree with that mapping in a few states of every game: those where the footer's
game keys differ from every state before (every kind of footer the walk meets, so every phase
of the game). In each: the footer shows exactly the game keys the mapping offers; the buttons
on screen are exactly those of the footer's keys that have one; each key behind the footer's
entries, pressed, does exactly what the mapping's `effect` says (sends that move and the
engine accepts it, commits that pre-lay, changes the player's choices to those, asks for a
hint); one key the footer hides and one button not shown (clicked anyway, a click on its way
as the state changed) send nothing the engine accepts and change nothing on the screen.

The app is seat 0 of a RefereeClient (tests/footer_util.py) whose sends go to a referee: a
copy of the game's engine, the same engine the host applies, so "accepted" means the host
would accept it too; the clock is frozen where the test puts it (at the moment the
playout's next move came, and in knock also just after the last event, while a knock window
may still be open). Each press is tried on the state as it stands (the screen's own choices
are undone after it); then the playout's next event is applied and told to the app as the
host would tell it.
"""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.actions import parse as parse_action

from kismet_tui.app import KismetApp
from kismet_tui.messages import host_message
from kismet_tui.rules import SeededRNG, new_game
from kismet_tui.rules.playout import random_playout
from kismet_tui.screens.offers import Choose, Commit, Say, Seen, Send, Think, effect, offered
from tests.footer_util import (
    RefereeClient,
    game_bindings,
    keys_behind,
    prelay_action,
)
from tests.scripted import OPTIONS, table_for
from tests.uiutil import footer_keys, wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]

# The footer's keys that are not the game's: help, quit, chat, leaving, the owner's hand-over
# of a seat to a bot (a request of the table, tests/test_ui_clocks.py), and the end's keys.
NOT_GAME_KEYS = {"f1", "question_mark", "ctrl+q", "t", "ctrl+l", "b"}
STATES = 60  # the first events of each playout (all of a solo dice game): every phase comes up
PRESSED = 6  # the states pressed in, at most, per game: the first of each kind of footer

# The key actions each game screen has a button for, and the widget that draws them.
BUTTONS = {
    "dice": ({"roll", "score", "hint"}, "#buttons"),
    "race": ({"pass"}, "#clock"),
    "knock": ({"roll", "pass", "knock", "confirm", "undo"}, "#buttons"),
}


def shown_entries(ruleset: str, seen: Seen) -> list[str]:
    """The footer's game entries, by the mapping."""
    return [
        key
        for key, name, params, show in game_bindings(ruleset)
        if show and offered(ruleset, name, params, seen)
    ]


def states_to_press(ruleset: str, names: list[str], header: dict, playout: list) -> set:
    """(event index, clock) of the states pressed in: the first state of each kind of footer
    (its game entries, by the mapping, for seat 0, in each phase of the game, and in a race
    round before and after seat 0 grabbed), PRESSED of them at most."""
    game = new_game(ruleset, names, header["seed"], header["options"], start_ms=header["t0"])
    seen_footers: set[tuple] = set()
    chosen: set[tuple[int, int]] = set()
    last_t = header["t0"]
    for index, event in enumerate(playout[:STATES]):
        for clock in sorted({last_t, event["t"]} if ruleset == "knock" else {event["t"]}):
            t = max(clock, game.now)
            view = game.view(0)
            footer = (
                tuple(shown_entries(ruleset, Seen(0, view, game.legal_actions(0, t)))),
                view["phase"],
                (view.get("done") or [None])[0],  # (a race round: grabbed or passed already)
            )
            if footer not in seen_footers and len(chosen) < PRESSED:
                seen_footers.add(footer)
                chosen.add((index, clock))
        game.apply(event["seat"], event["action"], event["t"])
        last_t = event["t"]
    return chosen


def buttons_shown(screen) -> set[str]:
    """The key actions of the buttons drawn (read from the `@click` of their text)."""
    widget = screen.query_one(BUTTONS[screen.RULESET][1])
    text = getattr(widget, "text", None) or widget.content
    shown = set()
    for span in text.spans:
        if isinstance(span.style, Style) and span.style.meta.get("@click"):
            inner = parse_action(span.style.meta["@click"])[2][0]  # screen.click('roll') -> roll
            shown.add(parse_action(inner)[1])
    return shown


def footer_actions(app) -> set[str]:
    return {
        parse_action(active.binding.action)[1]
        for active in app.screen.active_bindings.values()
        if active.enabled and active.binding.show
    }


def screen_choices(screen) -> tuple:
    """What a key may change on the screen alone, without sending anything."""
    return (
        frozenset(getattr(screen, "held", ())),
        getattr(screen, "cursor", None),
        tuple(getattr(screen, "chosen", ())),
        getattr(screen, "joker_first", None),
        getattr(screen, "hint_key", None),
    )


def choices_of(seen: Seen, hint_key) -> tuple:
    """screen_choices as the mapping's state has them."""
    return (seen.held, seen.cursor, seen.chosen, seen.joker_first, hint_key)


def undo_choices(screen, saved: tuple) -> None:
    held, cursor, chosen, joker_first, hint_key = saved
    for name, value in (
        ("held", set(held)),
        ("cursor", cursor),
        ("chosen", list(chosen)),
        ("joker_first", joker_first),
        ("hint_key", hint_key),
    ):
        if hasattr(screen, name):
            setattr(screen, name, value)


async def check_state(pilot, app, client, refusals: list[str], where: str, turn: int) -> int:
    """In the state as it stands: the footer and the buttons are the mapping's; each key
    behind the footer's entries does what the mapping's `effect` says; one hidden key and one
    hidden button do nothing. Returns how many keys were pressed."""
    screen = app.screen
    ruleset = screen.RULESET
    screen.refresh_keys()
    # Keys that came alive may join the footer a moment later (GameScreen.NEW_KEYS_LATER_S).
    await wait_for(pilot, lambda: screen.keys_timer is None, what="the footer's late keys")
    await pilot.pause()
    seen = screen.seen()
    listed = [key for key in footer_keys(app) if key not in NOT_GAME_KEYS]
    assert set(listed) == set(shown_entries(ruleset, seen)), (
        f"{where}: the footer shows {listed}, the mapping {shown_entries(ruleset, seen)}"
    )
    actions, _ = BUTTONS[ruleset]
    shown = buttons_shown(screen)
    assert shown == actions & footer_actions(app), (
        f"{where}: the buttons {sorted(shown)} are not those of the footer's keys ({listed})"
    )
    pressed = 0
    if actions - shown:  # a hidden button, clicked anyway
        hidden_buttons = sorted(actions - shown)
        action = hidden_buttons[turn % len(hidden_buttons)]
        saved = screen_choices(screen)
        client.sent.clear()
        await screen.action_click(action)
        await pilot.pause()
        accepted = [sent for sent, reason in client.sent if reason is None]
        assert not accepted, (
            f"{where}: hidden button {action} sent {accepted}, which the engine takes"
        )
        assert screen_choices(screen) == saved, (
            f"{where}: hidden button {action} changed the screen"
        )
        refusals.clear()
        pressed += 1
    action_of = {key: (name, params) for key, name, params, _show in game_bindings(ruleset)}
    behind = [
        key
        for entry in listed
        for key in keys_behind(entry, ruleset, screen.view(), 0, seen.chosen, seen.joker_first)
    ]
    hidden = sorted(set(action_of) - set(behind))
    if hidden:  # a key the footer hides, pressed anyway
        key = hidden[turn % len(hidden)]
        saved = screen_choices(screen)
        client.sent.clear()
        await pilot.press(key)
        await pilot.pause()
        accepted = [action for action, reason in client.sent if reason is None]
        assert not accepted, f"{where}: hidden key {key} sent {accepted}, which the engine takes"
        assert screen_choices(screen) == saved, f"{where}: hidden key {key} changed the screen"
        refusals.clear()
        pressed += 1
    for key in behind:
        name, params = action_of[key]
        saved = screen_choices(screen)
        done = effect(ruleset, name, params, screen.seen())
        client.sent.clear()
        refusals.clear()
        await pilot.press(key)
        what = f"{where}: key {key} to do what the mapping says, {done} (the footer lists {listed})"
        if isinstance(done, Send):
            await wait_for(pilot, lambda: client.sent, what=what)
            assert client.sent == [(done.action, None)], what + f", it sent {client.sent}"
        elif isinstance(done, Commit):
            await wait_for(pilot, lambda: client.sent, what=what)
            assert client.sent == [(prelay_action(done.cards), None)], (
                what + f", it sent {client.sent}"
            )
        elif isinstance(done, Choose):
            await wait_for(pilot, lambda saved=saved: screen_choices(screen) != saved, what=what)
            assert screen_choices(screen) == choices_of(done.seen, saved[4]), what
            assert not client.sent, what + f", it sent {client.sent}"
        elif isinstance(done, Think):
            await wait_for(
                pilot, lambda saved=saved: screen_choices(screen)[4] != saved[4], what=what
            )
            assert not client.sent, what + f", it sent {client.sent}"
        else:
            assert isinstance(done, Say)
            await wait_for(pilot, lambda: refusals, what=what)
        assert not refusals or isinstance(done, Say), f"{what}: refused: {refusals}"
        undo_choices(screen, saved)
        screen.refresh_keys()
        await pilot.pause()
        pressed += 1
    return pressed


@pytest.mark.parametrize(
    "ruleset, names",
    [
        ("dice", ["Ana"]),  # solo: the whole game, down to its last open box
        ("race", ["Ana", "Bo", "Cy"]),
        ("knock", ["Ana", "Bo", "Cy"]),
    ],
)
async def test_the_app_does_what_the_footer_mapping_says(ruleset, names):
    seed = f"footer-{ruleset}".encode()
    header = {
        "ruleset": ruleset,
        "seats": names,
        "seed": seed,
        "options": OPTIONS[ruleset],
        "t0": 1_000_000,
    }
    full = new_game(ruleset, names, seed, OPTIONS[ruleset], start_ms=header["t0"])
    playout = random_playout(full, SeededRNG(seed + b"-play"), max_gap_ms=2500, max_steps=STATES)
    pressing = states_to_press(ruleset, names, header, playout)
    client = RefereeClient(header, [], table_for(ruleset, names), clock_ms=header["t0"])
    app = KismetApp(client, address="this computer")
    refusals: list[str] = []
    app.show_refusal = refusals.append  # type: ignore[method-assign]
    pressed = 0
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "game", None) is client.game, what="the game screen"
        )
        game = client.game
        last_t = header["t0"]
        for index, event in enumerate(playout[: max(index for index, _ in pressing) + 1]):
            # The states before are only played through, the way the host tells them.
            for clock in sorted({last_t, event["t"]} if ruleset == "knock" else {event["t"]}):
                if (index, clock) in pressing:
                    client.clock_ms = clock
                    where = f"{ruleset} before event {index + 1} at {clock}"
                    pressed += await check_state(pilot, app, client, refusals, where, index)
            notes = game.apply(event["seat"], event["action"], event["t"])
            client.events.append(event)
            client.notes.append(notes)
            last_t = event["t"]
            app.post_message(host_message({"type": "event", **event, "notes": notes}))
            await wait_for(
                pilot,
                lambda seq=event["seq"]: (
                    game.finished or app.screen.version > 0 and app.screen.logged_seq >= seq
                ),
                what="the event on screen",
            )
            if game.finished:
                break
    assert len(pressing) >= 3, "the walk met hardly any kind of footer: it tests nothing"
    assert pressed > 10, "the walk pressed hardly any key: it tests nothing"
