"""Helpers of the app's tests (Pilot): waiting for a condition, apps and clients in set states,
playing a game through by keys (shared by the tests/test_ui_*.py modules)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.net import Client
from kismet_tui.rules import ScriptedRNG, SeededRNG, new_game
from kismet_tui.rules.cards import CIRCLE_SIZE, NUMBERS, card_id
from kismet_tui.rules.knock import prelay_commitment
from kismet_tui.rules.playout import random_playout
from protocol.gamelog import record_bytes
from protocol.limits import REACTION_FLOOR_MS
from tests.scripted import ScriptedClient, table_for


def race_position(seats: int):
    """The circle holds 2..12 in order (cards of every set); the dice are 2 3 5."""
    game = new_game("race", seats, b"golden", rng=ScriptedRNG([2, 3, 5]), start_ms=0)
    game.circle = [card_id(pos % seats, number) for pos, number in enumerate(NUMBERS)]
    assert len(game.circle) == CIRCLE_SIZE
    return game


async def wait_for(pilot, condition, seconds: float = 20.0, what: str = "condition", seen=None):
    """Let the app run until `condition()` holds; fail with `what` if it never does (and with
    what `seen()` says of the state then, so a failure once in many runs can be read).

    The limit is generous (a busy machine is slow, not wrong); a test that passes returns as
    soon as the condition holds, so it costs nothing there."""
    deadline = time.monotonic() + max(seconds, 20.0)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out waiting for {what}" + (f" ({seen()})" if seen is not None else "")
            )
        await pilot.pause(0.02)


async def settle(pilot, client) -> None:
    """Return once every host message the client has received so far has been handled by the
    app: its queue to the app is empty and the app has handled what was posted. A check that
    something did NOT happen (no line written twice) is then a real check, not a guess that
    some fixed time was long enough."""
    await wait_for(
        pilot, lambda: all(queue.empty() for queue in client._queues), what="the app to read"
    )
    await pilot.pause()
    await pilot.pause()


@contextlib.asynccontextmanager
async def solo_dice(host, reconnect: bool = False, address: str | None = None):
    """The app, connected to `host` as Ana, on the dice screen of a solo table it made by keys
    (n, enter, g); yields (app, pilot, client). `address`: what the app is told it is
    connected to (the status bar shows it)."""
    client = Client(reconnect=reconnect)
    app = KismetApp(
        client,
        connect=lambda: client.connect("127.0.0.1", host.port, "Ana"),
        address=address or f"127.0.0.1:{host.port}",
        on_quit=client.close,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: client.state == "connected", what="connection")
        await pilot.press("n", "enter")
        await wait_for(pilot, lambda: client.table is not None, what="the table")
        await pilot.press("g")
        await wait_for(pilot, lambda: getattr(app.screen, "RULESET", None) == "dice", what="dice")
        yield app, pilot, client


def footer_keys(app) -> dict[str, str]:
    """What the footer offers now: key -> description (only enabled, shown bindings)."""
    return {
        key: active.binding.description
        for key, active in app.screen.active_bindings.items()
        if active.enabled and active.binding.show
    }


async def play_dice_to_the_end(pilot, app, client, other) -> None:
    """Ana (the app) plays by keys, Bo (a bare client) by calls, until the game is over."""
    game = client.game
    while not game.finished:
        view = game.view(1)
        if view["current"] == 1:
            turn = view["turn"]
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(1)["can_score"], what="Ana's throw")
            await pilot.press("enter")
            await wait_for(
                pilot, lambda: game.finished or game.view(1)["turn"] != turn, what="Ana's score"
            )
        else:
            turn = view["turn"]
            await other.act({"type": "roll", "hold": []})
            await wait_for(pilot, lambda: other.game.view(0)["can_score"], what="Bo's throw")
            box = next(b for b, p in other.game.view(0)["preview"].items() if p["legal"])
            await other.act({"type": "score", "box": box})
            await wait_for(
                pilot, lambda: game.finished or game.view(1)["turn"] != turn, what="Bo's score"
            )


def make_app(host, name: str) -> tuple[KismetApp, Client]:
    client = Client(reconnect=False)
    app = KismetApp(
        client,
        connect=lambda: client.connect("127.0.0.1", host.port, name),
        address=f"127.0.0.1:{host.port}",
        on_quit=client.close,
    )
    return app, client


async def look_at_the_dice(pilot, client) -> None:
    """As a person would: a grab or knock comes after the dice were seen [D20]."""
    await wait_for(
        pilot, lambda: client.since_throw_ms() >= REACTION_FLOOR_MS, what="a look at the dice"
    )


async def seat_both(pilot, app, client, other, ruleset: str, options: dict):
    """`other` makes the table; the app's player sits down with enter, is ready; other starts."""
    await wait_for(pilot, lambda: client.state == "connected", what="connection")
    await other.create_table(ruleset, options)
    await pilot.press("r")  # refresh the table list
    await wait_for(pilot, lambda: bool(app.screen.tables), what="the table list")
    await pilot.press("enter")  # sit down
    await wait_for(pilot, lambda: client.seat == 1, what="a seat")
    await pilot.press("y")  # ready
    await wait_for(pilot, lambda: other.table["seats"][1]["ready"], what="ready mark")
    await other.start()
    await wait_for(
        pilot,
        lambda: client.game is not None and getattr(app.screen, "RULESET", None) == ruleset,
        what=f"the {ruleset} screen",
    )


async def first_race_round(pilot, app, client, other, round_limit_ms: int):
    """A race game between the app's player and `other`, once its first dice are out."""
    await seat_both(
        pilot, app, client, other, "race", {"countdown_ms": 200, "round_limit_ms": round_limit_ms}
    )
    # (client.game afresh each time: a resync gives the client a new replica, and the one
    # seen before it would wait for a roll it never gets)
    first = client.game
    await wait_for(
        pilot,
        lambda: client.game is not None and client.game.phase == "grabbing",
        what="the first roll",
        seen=lambda: (
            f"phase {getattr(client.game, 'phase', None)!r}, {len(client.events)} events, "
            f"replica {'the same' if client.game is first else 'new'}, "
            f"{client.desyncs} desyncs, connection {client.state}"
        ),
    )
    return client.game


async def pass_every_round(pilot, game) -> None:
    """Seat 0 passes by key each round (the bot grabs) until the race game is over."""
    for _ in range(3000):
        if game.finished:
            break
        if game.phase == "grabbing" and not game.view(0)["done"][0]:
            await pilot.press("p")
        await pilot.pause(0.02)
    assert game.finished


class ScriptedSeat:
    """Stands where the network client stands: a local replica, seat 0, and a record of the
    actions the screen sent (each is also applied, as the host would stamp it)."""

    state = "connected"
    live = True
    table = None
    client_id = 1
    verification = None

    def __init__(self, game, header):
        self.game, self.header, self.seat = game, header, 0
        self.sent: list[dict] = []
        self.t = 1000

    def host_time_ms(self) -> int:
        return self.t

    def applied_events(self) -> list[dict]:
        return []  # the screen's history starts with the test's own events

    def applied_notes(self) -> list[list[dict]]:
        return []

    def act_nowait(self, action: dict) -> None:
        self.sent.append(action)

    def messages(self):
        async def never():
            await asyncio.Event().wait()
            yield {}

        return never()

    async def _nothing(self, *args, **kwargs) -> None:
        return None

    # The other requests (the lobby asks for the tables): taken, and nothing happens.
    act = chat = ready = start = leave = list_tables = prelay = join_table = _nothing
    create_table = remove = _nothing


def joker_game():
    """Two seats, empty pre-lays, seat 0 to roll first and about to throw 4 4 4."""
    for seed in range(100):
        game = new_game("knock", 2, seed, rng=ScriptedRNG([4, 4, 4], seed=seed))
        for seat in (0, 1):
            game.apply(seat, {"type": "prelay", "commit": prelay_commitment([], "00")}, 10)
        for seat in (0, 1):
            game.apply(seat, {"type": "reveal", "cards": [], "salt": "00"}, 20)
        if game.view(0)["turn"] == 0:
            return game, seed
    raise AssertionError("no seed lets seat 0 roll first")


async def type_text(pilot, text: str) -> None:
    for ch in text:
        await pilot.press("space" if ch == " " else ch)


def open_records(*keys):
    async def then(pilot):
        await pilot.press("h")
        for _ in range(300):
            screen = pilot.app.screen
            if type(screen).__name__ == "RecordsScreen" and screen.answer is not None:
                break
            await pilot.pause(0.01)
        for key in keys:
            before = pilot.app.screen.answer
            await pilot.press(key)
            for _ in range(300):
                if pilot.app.screen.answer is not before:
                    break
                await pilot.pause(0.01)
        await pilot.pause()

    return until_screen("LobbyScreen", then)


def write_log(path, ruleset: str, names: list[str], seed: bytes, options: dict) -> None:
    header = {"ruleset": ruleset, "seats": names, "seed": seed, "options": options, "t0": 1_000_000}
    game = new_game(ruleset, names, seed, options, start_ms=header["t0"])
    events = random_playout(game, SeededRNG(b"playout"), max_gap_ms=300)
    with open(path, "wb") as out:
        out.write(record_bytes({"kind": "header", "header": header, "table": 1}))
        for event in events:
            out.write(record_bytes({"kind": "event", **event}))
        out.write(record_bytes({"kind": "end", "result": game.result()}))


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


THREE = ["Ana", "Bot 1 (easy)", "Bot 2 (hard)"]


def app_for(client) -> KismetApp:
    return KismetApp(client, address="this computer")


def until_screen(name: str, then=None):
    """run_before: wait (by condition, not by time) until `name` is the screen on top and
    drawn; `then(pilot)` may press keys after that."""

    async def run_before(pilot):
        app = pilot.app
        for _ in range(500):
            screen = app.screen
            if (
                type(screen).__name__ == name
                and screen.is_mounted
                and (not hasattr(screen, "RULESET") or getattr(screen, "game", None) is not None)
            ):
                break
            await pilot.pause(0.01)
        else:
            raise AssertionError(f"{name} never came up")
        await pilot.pause()
        if then is not None:
            await then(pilot)

    return run_before


def dice_mid_game():
    return ScriptedClient.at(
        "dice",
        ["Ana", "Bot 1 (medium)"],
        until=lambda g: (
            g.view(0)["turn"] >= 6 and g.view(0)["current"] == 0 and g.view(0)["rolls_used"] == 1
        ),
    )


def knock_mid_game():
    def other_throw(game):
        view = game.view(0)
        roll = view.get("roll") or {}
        return (
            view["phase"] == "play"
            and roll.get("roller") not in (None, 0)
            and roll.get("status") == "deciding"
            and roll.get("no", 0) >= 6
        )

    return ScriptedClient.at("knock", THREE, until=other_throw)


def lobby_client():
    table = table_for("race", ["Ana", "Bo Longername-Jones", "Bot 1 (easy)"], state="lobby")
    table["options"] = {}
    tables = [
        {
            "id": 1,
            "ruleset": "race",
            "state": "lobby",
            "seats": ["Ana", "Bo Longername-Jones", "Bot 1 (easy)"],
            "max_seats": 8,
            "spectators": 0,
            "owner": "Ana",
        },
        {
            "id": 2,
            "ruleset": "dice",
            "state": "playing",
            "seats": ["Cy", "Di"],
            "max_seats": 8,
            "spectators": 1,
            "owner": "Cy",
        },
    ]
    return ScriptedClient(None, [], table, tables=tables)


def race_mid_round():
    return ScriptedClient.at(
        "race",
        THREE,
        until=lambda g: (
            g.view(0)["phase"] == "grabbing"
            and g.view(0)["round"] >= 2
            and len(g.view(0)["grabs"]) >= 1
        ),
    )
