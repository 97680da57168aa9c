"""The footer shows exactly the keys that act, by the engine's legal_actions (issue 21 point 5,
issue 24 point 2): a walk through the states of a seeded random playout of each game,
pressing, in each state, every key that the footer's game entries stand for, and seeing the
engine accept what it sends; checking that every kind of move the engine lists for the seat
has its key in the footer; and pressing one of the keys the footer hides (in every fourth
state, a different one each time, so the walk costs little more), which must send nothing the
engine accepts and change nothing on the screen. The same of buttons (issue 32): in each
state the buttons on screen are exactly those of the footer's keys that have one, and in
every fourth state a button not shown, clicked anyway (a click on its way as the state
changed), sends nothing the engine accepts and changes nothing.

The app is seat 0 of a ScriptedClient (tests/scripted.py) whose sends go to a referee: a copy
of the game's engine, the same engine the host applies, so "accepted" means the host would
accept it too; the clock is frozen where the test puts it (at the last event, when a knock
window is still open, and at the moment the playout's next move came). Each press is tried
on the state as it stands (the screen's own choices are undone after it); then the playout's
next event is applied and told to the app as the host would tell it.
"""

from __future__ import annotations

import copy

import pytest
from rich.style import Style
from textual.actions import parse as parse_action

from kismet_tui.app import KismetApp
from kismet_tui.messages import host_message
from kismet_tui.rules import IllegalAction, SeededRNG, new_game
from kismet_tui.rules.knock import prelay_commitment
from kismet_tui.rules.playout import random_playout
from kismet_tui.screens.race import KEYS as RACE_KEYS
from tests.scripted import OPTIONS, ScriptedClient, table_for
from tests.test_ui_dice import wait_for
from tests.test_ui_end import footer_keys

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]

# The footer's keys that are not the game's: help, quit, chat, leaving, the owner's hand-over
# of a seat to a bot (a request of the table, tests/test_ui_clocks.py), and the end's keys.
NOT_GAME_KEYS = {"f1", "question_mark", "ctrl+q", "t", "ctrl+l", "b"}
KNOCK_KEY_OF = {10: "0", 11: "minus", 12: "equals_sign"}
STATES = 60  # the first events of each playout (all of a solo dice game): every phase comes up
# A hidden key is pressed in every fourth state (another one each time), which keeps the
# walk's time about what it was while the hidden keys of every phase still get pressed.
HIDDEN_EVERY = 4
# Each walk is cut into parts, one test each, so that parallel workers share it (pytest -n):
# a part plays the states before its own through without pressing, then presses in its own.
PARTS = 3


class RefereeClient(ScriptedClient):
    """A ScriptedClient whose sends are judged by a copy of the engine: `sent` keeps
    (action, None) when accepted, (action, reason) when refused."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[tuple[dict, str | None]] = []

    def judge(self, action: dict) -> None:
        probe = copy.deepcopy(self.game)
        try:
            probe.apply(self.seat, action, max(self.clock_ms, self.game.now))
            self.sent.append((action, None))
        except IllegalAction as refusal:
            self.sent.append((action, refusal.words))

    def act_nowait(self, action) -> None:
        self.judge(action)

    async def act(self, action) -> None:
        self.judge(action)

    async def prelay(self, cards) -> None:
        self.judge({"type": "prelay", "commit": prelay_commitment(list(cards), "00" * 16)})


def keys_behind(entry: str, ruleset: str, view: dict) -> list[str]:
    """The keys one footer entry stands for: "1-5" for five keys, "a-k" for the letters of
    the cards on the table that nobody grabbed yet, "2-9 0 - =" for your cards that can be
    played now (every open card while choosing a pre-lay, else those matching the throw)."""
    if ruleset == "dice" and entry == "1":
        return list("12345")
    if ruleset == "dice" and entry == "up":
        return ["up", "down", "k", "j"]
    if ruleset == "race" and entry == "a":
        taken = {grab["pos"] for grab in view["grabs"]}
        return [
            RACE_KEYS[card["pos"]] for card in view["circle"] if card and card["pos"] not in taken
        ]
    if ruleset == "knock" and entry == "2":
        mine = [card["number"] for card in view["players"][0]["open"]]
        if view["phase"] != "prelay_commit":
            mine = [n for n in mine if n in ((view.get("roll") or {}).get("targets") or [])]
        return [KNOCK_KEY_OF.get(n, str(n)) for n in mine]
    return [entry]


# The footer entry that stands for each kind of move the engine may list for the seat (None:
# no key, the client sends it by itself).
ENTRY_FOR_MOVE: dict[str, dict[str, str | None]] = {
    "dice": {"roll": "r", "score": "enter"},
    "race": {"grab": "a", "pass": "p"},
    "knock": {
        "roll": "r",
        "pass": "p",
        "knock": "k",
        "lay": "2",
        "prelay": "enter",
        "reveal": None,
    },
}


def entries_the_engine_needs(ruleset: str, legal: list[dict]) -> set[str]:
    """The footer entries the seat's legal moves call for: each kind's key; in dice also the
    hold keys when a throw may keep dice and the box keys when more than one box is open; in
    knock the card keys for a knock naming a card and a pre-lay to pick."""
    needed = {
        entry for action in legal if (entry := ENTRY_FOR_MOVE[ruleset][action["type"]]) is not None
    }
    if ruleset == "dice" and any(a["type"] == "roll" and a.get("hold") for a in legal):
        needed.add("1")
    if ruleset == "dice" and len({a["box"] for a in legal if a["type"] == "score"}) > 1:
        needed.add("up")
    if ruleset == "knock" and any(a["type"] == "prelay" or "card" in a for a in legal):
        needed.add("2")
    return needed


def game_keys(screen) -> set[str]:
    """Every key the screen binds for its game (the first of "up,k" style lists too)."""
    return {
        key
        for key, bindings in screen._bindings.key_to_bindings.items()
        if key not in NOT_GAME_KEYS
        and any(b.action.split("(")[0] not in ("rematch", "results") for b in bindings)
    }


# The key actions each game screen has a button for, and the widget that draws them.
BUTTONS = {
    "dice": ({"roll", "score", "hint"}, "#buttons"),
    "race": ({"pass"}, "#clock"),
    "knock": ({"roll", "pass", "knock", "confirm", "undo"}, "#buttons"),
}


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


async def press_every_listed_key(
    pilot, app, client, refusals: list[str], where: str, turn: int
) -> int:
    """Press each key the footer's game entries stand for, each on the state as it stands;
    fail if one is refused or does nothing; fail if a move the engine lists has no key in the
    footer; in every HIDDEN_EVERY-th `turn` press one of the keys it hides and fail if that
    sends a move the engine accepts or changes the screen's choices. Returns how many keys were pressed."""
    screen = app.screen
    screen.refresh_keys()
    # Keys that came alive may join the footer a moment later (GameScreen.NEW_KEYS_LATER_S).
    await wait_for(pilot, lambda: screen.keys_timer is None, what="the footer's late keys")
    await pilot.pause()
    listed = [key for key in footer_keys(app) if key not in NOT_GAME_KEYS]
    legal = client.game.legal_actions(client.seat, max(client.clock_ms, client.game.now))
    missing = entries_the_engine_needs(screen.RULESET, legal) - set(listed)
    assert not missing, (
        f"{where}: the engine takes {legal} but the footer ({listed}) hides {missing}"
    )
    actions, _ = BUTTONS[screen.RULESET]
    shown = buttons_shown(screen)
    assert shown == actions & footer_actions(app), (
        f"{where}: the buttons {sorted(shown)} are not those of the footer's keys ({listed})"
    )
    pressed = 0
    if turn % HIDDEN_EVERY == 0 and actions - shown:
        hidden_buttons = sorted(actions - shown)
        action = hidden_buttons[turn // HIDDEN_EVERY % len(hidden_buttons)]
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
    offered = [key for entry in listed for key in keys_behind(entry, screen.RULESET, screen.view())]
    hidden = sorted(game_keys(screen) - set(offered))
    if hidden and turn % HIDDEN_EVERY == 0:
        key = hidden[turn // HIDDEN_EVERY % len(hidden)]
        saved = screen_choices(screen)
        client.sent.clear()
        await pilot.press(key)
        await pilot.pause()
        accepted = [action for action, reason in client.sent if reason is None]
        assert not accepted, f"{where}: hidden key {key} sent {accepted}, which the engine takes"
        assert screen_choices(screen) == saved, f"{where}: hidden key {key} changed the screen"
        refusals.clear()
        pressed += 1
    for entry in listed:
        for key in keys_behind(entry, screen.RULESET, screen.view()):
            saved = screen_choices(screen)
            client.sent.clear()
            refusals.clear()
            await pilot.press(key)
            await wait_for(
                pilot,
                lambda: client.sent or screen_choices(screen) != saved or refusals,
                what=f"{where}: key {key} to do something (the footer lists {listed})",
            )
            assert not refusals, (
                f"{where}: key {key} refused: {refusals} (the footer lists {listed})"
            )
            assert all(reason is None for _, reason in client.sent), (
                f"{where}: key {key} sent what the engine refuses: {client.sent} (the footer lists {listed})"
            )
            undo_choices(screen, saved)
            screen.refresh_keys()
            await pilot.pause()
            pressed += 1
    return pressed


@pytest.mark.parametrize("part", range(PARTS), ids=[f"part{n + 1}" for n in range(PARTS)])
@pytest.mark.parametrize(
    "ruleset, names",
    [
        ("dice", ["Ana"]),  # solo: the whole game, down to its last open box
        ("race", ["Ana", "Bo", "Cy"]),
        ("knock", ["Ana", "Bo", "Cy"]),
    ],
)
async def test_every_key_the_footer_lists_is_accepted(ruleset, names, part):
    seed = f"footer-{ruleset}".encode()
    header = {
        "ruleset": ruleset,
        "seats": names,
        "seed": seed,
        "options": OPTIONS[ruleset],
        "t0": 1_000_000,
    }
    full = new_game(ruleset, names, seed, OPTIONS[ruleset], start_ms=header["t0"])
    playout = random_playout(full, SeededRNG(seed + b"-play"), max_gap_ms=2500)
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
        walked = playout[:STATES]
        first, end = len(walked) * part // PARTS, len(walked) * (part + 1) // PARTS
        for index, event in enumerate(walked[:end]):
            # At the time the next move came; in knock also just after the last event, while
            # the knock window may still be open (nothing else in the games moves with time
            # alone: their deadlines come as the host's timeout events). The states before
            # this part's are only played through, the way the host tells them.
            clocks = sorted({last_t, event["t"]} if ruleset == "knock" else {event["t"]})
            for clock in clocks if index >= first else ():
                client.clock_ms = clock
                pressed += await press_every_listed_key(
                    pilot,
                    app,
                    client,
                    refusals,
                    f"{ruleset} before event {index + 1} at {clock}",
                    index,
                )
            notes = game.apply(event["seat"], event["action"], event["t"])
            client.events.append(event)
            client.notes.append(notes)
            last_t = event["t"]
            app.post_message(host_message({"type": "event", **event, "notes": notes}))
            await wait_for(
                pilot,
                lambda: (
                    game.finished
                    or app.screen.version > 0
                    and app.screen.logged_seq >= event["seq"]
                ),
                what="the event on screen",
            )
            if game.finished:
                break
    assert pressed > 30 // PARTS, "the walk pressed hardly any key: it tests nothing"
