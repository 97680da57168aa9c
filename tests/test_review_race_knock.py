"""What the log says of each player after a race or knock game (kismet_tui/review):
reaction times, wrong grabs and missed cards in race; overlooked lays, missed and wrong knocks
in knock; the words of the end box and `kismet-replay --review [--json]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kismet_tui.cli import replay_main
from kismet_tui.review.knock import knock_chances
from kismet_tui.review.race import race_reactions
from kismet_tui.review.words import learned_lines
from kismet_tui.rules import apply_event, game_from_header
from kismet_tui.rules.knock import PUBLIC_SALT, prelay_commitment
from kismet_tui.rules.playout import random_playout
from kismet_tui.rules.rng import SeededRNG
from protocol.gamelog import record_bytes

HOST = -1


class Log:
    """A game played event by event through the engine, its stamped log kept."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.header = header
        self.game = game_from_header(header)
        self.events: list[dict[str, Any]] = []

    def stamp(self, seat: int, action: dict[str, Any], t: int) -> list[Any]:
        event = {"seq": len(self.events) + 1, "t": t, "seat": seat, "action": action}
        notes = apply_event(self.game, event)
        self.events.append(event)
        return list(notes)

    def places(self, target: bool) -> list[int]:
        game = self.game
        return [
            pos
            for pos, card in enumerate(game.circle)  # type: ignore[attr-defined]
            if card is not None and game._shows_target(card) == target
        ]  # type: ignore[attr-defined]


def race(seats: int = 3) -> Log:
    names = ["Ana", "Bo", "Cy", "Dee"][:seats]
    players = ["player:ana", "bot:medium", "player:cy", "player:dee"][:seats]
    return Log(
        {
            "ruleset": "race",
            "seats": names,
            "players": players,
            "seed": b"race-review",
            "options": {},
            "t0": 1000,
        }
    )


def roll(log: Log) -> int:
    """The countdown's timeout: the dice show. Returns its stamp."""
    t = log.game.next_deadline()
    assert t is not None
    notes = log.stamp(HOST, {"type": "timeout"}, t)
    assert notes[0]["type"] == "rolled" and log.game.phase == "grabbing"  # type: ignore[attr-defined]
    return t


def test_reactions_are_the_times_from_the_throw_to_each_grab() -> None:
    log = race(3)
    shown = roll(log)
    right, wrong = log.places(True), log.places(False)
    log.stamp(1, {"type": "grab", "card": right[0]}, shown + 250)
    log.stamp(0, {"type": "grab", "card": wrong[0]}, shown + 400)
    log.stamp(2, {"type": "pass"}, shown + 900)
    # Round 2: Ana is quick and right, Bo slow, Cy does nothing till the time is up.
    log.stamp(HOST, {"type": "timeout"}, log.game.next_deadline())  # the reveal's pause ends
    shown2 = roll(log)
    right2 = log.places(True)
    log.stamp(0, {"type": "grab", "card": right2[0]}, shown2 + 310)
    if len(right2) > 1:
        log.stamp(1, {"type": "grab", "card": right2[1]}, shown2 + 1200)
    seats = race_reactions(log.header, log.events)
    ana, bo, cy = seats
    assert ana.reactions_ms == [400, 310] and ana.fastest_ms == 310 and ana.median_ms == 355
    assert (ana.right, ana.wrong) == (0, 1)  # round 2 not over yet: not revealed
    assert bo.bot and not ana.bot
    assert bo.reactions_ms[0] == 250 and bo.right == 1 and bo.wrong == 0
    # Ana grabbed a wrong card while a right one lay there; Cy passed with one there.
    assert ana.missed == 1 and cy.missed == 1 and bo.missed == 0
    assert cy.reactions_ms == [] and cy.median_ms is None


def test_a_seat_that_did_nothing_missed_only_a_card_left_when_the_round_ended() -> None:
    # Time up with a target card still open: everyone who got no right card missed it.
    log = race(2)
    shown = roll(log)
    log.stamp(HOST, {"type": "timeout"}, log.game.next_deadline())
    assert [s.missed for s in race_reactions(log.header, log.events)] == [1, 1]
    # The one target card taken by Bo: nothing was left for Ana and Cy, who did nothing.
    log = Log(
        {
            "ruleset": "race",
            "seats": ["Ana", "Bo", "Cy"],
            "players": None,
            "seed": b"one-10",
            "options": {},
            "t0": 1000,
        }
    )
    shown = roll(log)
    assert len(log.places(True)) == 1  # (this seed's first throw shows one target card)
    log.stamp(1, {"type": "grab", "card": log.places(True)[0]}, shown + 200)
    assert log.game.phase == "pause"  # type: ignore[attr-defined]  # (no match left)
    ana, bo, cy = race_reactions(log.header, log.events)
    assert ana.missed == 0 and bo.missed == 0 and bo.right == 1 and cy.missed == 0


def test_a_whole_random_race_game_adds_up() -> None:
    log = race(4)
    events = random_playout(log.game, SeededRNG(b"whole race"), max_gap_ms=3000)
    seats = race_reactions(log.header, events)
    grabs = sum(1 for e in events if e["action"]["type"] == "grab")
    assert sum(len(s.reactions_ms) for s in seats) == grabs > 0
    for seat in seats:
        assert seat.right + seat.wrong == len(seat.reactions_ms)
        assert all(0 <= ms <= 10_000 for ms in seat.reactions_ms)  # within the round limit
        assert 0 <= seat.missed <= seat.rounds
    # The same log reads the same every time: nothing but the log goes in.
    assert [s.as_json() for s in race_reactions(log.header, events)] == [s.as_json() for s in seats]


def knock_opening() -> tuple[Log, int, int]:
    """A two-seat knock game past its empty pre-lays: (log, first roller, the other)."""
    log = Log(
        {
            "ruleset": "knock",
            "seats": ["Ana", "Bo"],
            "players": ["player:ana", "bot:hard"],
            "seed": b"k",
            "options": {},
            "t0": 0,
        }
    )
    commit = prelay_commitment([], PUBLIC_SALT)
    for seat in (0, 1):
        log.stamp(seat, {"type": "prelay", "commit": commit}, 100 + seat)
    for seat in (0, 1):
        log.stamp(seat, {"type": "reveal", "cards": [], "salt": PUBLIC_SALT}, 200 + seat)
    first = log.game.turn  # type: ignore[attr-defined]
    return log, first, 1 - first


def test_knock_counts_an_overlooked_lay_the_knock_nobody_made_and_a_wrong_knock() -> None:
    log, a, b = knock_opening()
    t = 10_000
    log.stamp(a, {"type": "roll"}, t)
    # With all 11 cards open the roller always holds a match: passing overlooks it.
    log.stamp(a, {"type": "pass"}, t + 500)
    log.stamp(b, {"type": "roll"}, t + 3000)  # nobody knocked on a's throw
    laid = log.game._matches(b)[0]  # type: ignore[attr-defined]
    log.stamp(b, {"type": "lay", "card": laid}, t + 3500)
    log.stamp(a, {"type": "roll"}, t + 6000)
    notes = log.stamp(b, {"type": "knock"}, t + 6500)  # a holds a match: a wrong knock
    assert notes[0]["judgement"] == "wrong" and notes[0]["turned_up"]["card"] == laid
    by_seat = {s.seat: s for s in knock_chances(log.header, log.events)}
    roller, knocker = by_seat[a], by_seat[b]
    assert roller.overlooked == 1 and roller.missed_knocks == 0
    assert knocker.missed_knocks == 1 and knocker.overlooked == 0
    chips = log.game.chips  # type: ignore[attr-defined]
    assert knocker.wrong_knocks == 1 and knocker.wrong_cost == chips[laid - 2] > 0
    assert by_seat[1].bot and not by_seat[0].bot


def test_a_good_knock_leaves_no_missed_chance() -> None:
    log, a, b = knock_opening()
    log.stamp(a, {"type": "roll"}, 10_000)
    log.stamp(a, {"type": "pass"}, 10_500)
    notes = log.stamp(b, {"type": "knock"}, 10_700)
    assert notes[0]["judgement"] == "good"
    log.stamp(b, {"type": "roll"}, 13_000)
    by_seat = {s.seat: s for s in knock_chances(log.header, log.events)}
    assert by_seat[b].good_knocks == 1 and by_seat[b].missed_knocks == 0
    assert by_seat[a].overlooked == 1


def test_the_words_name_each_player_and_mark_the_bot() -> None:
    log = race(2)
    shown = roll(log)
    log.stamp(1, {"type": "grab", "card": log.places(True)[0]}, shown + 420)
    title, lines = learned_lines("race", log.header, log.events)
    assert title.startswith("How fast")
    assert lines[0].startswith("Ana") and "no grabs" in lines[0]
    assert lines[1].startswith("Bo (bot)") and "0.42 s (best 0.42)" in lines[1]
    assert learned_lines("dice", log.header, log.events) == ("", [])


def write_log(path: Path, log: Log) -> None:
    with open(path, "wb") as out:
        out.write(record_bytes({"kind": "header", "header": log.header, "table": 1}))
        for event in log.events:
            out.write(record_bytes({"kind": "event", **event}))


def test_replay_review_prints_the_figures_as_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, a, b = knock_opening()
    log.stamp(a, {"type": "roll"}, 10_000)
    log.stamp(a, {"type": "pass"}, 10_500)
    log.stamp(b, {"type": "roll"}, 13_000)
    path = tmp_path / "knock.kismet"
    write_log(path, log)
    assert replay_main([str(path), "--review"]) == 0
    text = capsys.readouterr().out
    assert "Chances missed" in text and "1 overlooked" in text and "1 missed knocks" in text
    assert replay_main([str(path), "--review", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ruleset"] == "knock"
    assert [p["overlooked"] for p in report["players"]][a] == 1
    assert [p["missed_knocks"] for p in report["players"]][b] == 1
    assert set(report["players"][0]) >= {"seat", "name", "bot", "wrong_knocks", "wrong_cost"}


@pytest.mark.ui
@pytest.mark.timeout(120)
@pytest.mark.parametrize("ruleset, title", [("race", "How fast"), ("knock", "Chances missed")])
async def test_the_end_box_shows_a_line_per_player(ruleset: str, title: str) -> None:
    from kismet_tui.replay import ReplayApp
    from tests.uiutil import wait_for

    options = (
        {"countdown_ms": 200, "round_limit_ms": 800, "reveal_ms": 100} if ruleset == "race" else {}
    )
    log = Log(
        {
            "ruleset": ruleset,
            "seats": ["Ana", "Bo"],
            "players": ["player:ana", "bot:easy"],
            "seed": b"end-box",
            "options": options,
            "t0": 1_000_000,
        }
    )
    weights = {"knock": 1} if ruleset == "knock" else None
    events = random_playout(
        log.game,
        SeededRNG(b"end-box playout"),
        max_gap_ms=300,
        weights=weights,
        default_weight=24 if weights else 1,
    )
    _, expected = learned_lines(ruleset, log.header, events)
    app = ReplayApp(log.header, events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot, lambda: getattr(app.screen, "RULESET", None) == ruleset, what="the game screen"
        )
        app.publish([app.source.next_event() for _ in range(len(events))])
        await wait_for(
            pilot,
            lambda: (
                type(app.screen).__name__ == "EndScreen" and len(app.screen.query("#learned")) > 0
            ),
            50,
            "the end box",
        )
        shown = str(app.screen.query_one("#learned").content)
        assert shown.startswith(title)
        assert [line for line in shown.splitlines()[1:]] == expected
        assert expected[0].startswith("Ana") and expected[1].startswith("Bo (bot)")
        # The box still fits the smallest screen: its keys line shows.
        await wait_for(
            pilot,
            lambda: app.screen.query_one("#end-keys").region.height >= 1,
            what="the end keys on screen",
        )


def test_the_rounds_and_throws_add_up_to_the_totals_and_go_into_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kismet_tui.review.knock import read_knock
    from kismet_tui.review.race import read_race

    log = race(3)
    events = random_playout(log.game, SeededRNG(b"rounds"), max_gap_ms=3000)
    seats, rounds = read_race(log.header, events)
    assert rounds and [r.round for r in rounds] == sorted(r.round for r in rounds)
    for seat in seats:  # each round's part of a seat adds up to its totals
        mine = [r.seats[seat.seat] for r in rounds]
        assert [m.reaction_ms for m in mine if m.did == "grab"] == seat.reactions_ms
        assert sum(m.missed for m in mine) == seat.missed
        assert sum(m.right is True for m in mine) == seat.right
        assert sum(m.right is False for m in mine) == seat.wrong
    for one in rounds:
        assert one.wiped or all(m.card is None or 2 <= m.card <= 12 for m in one.seats)
    log.events = events
    write_log(tmp_path / "race.kismet", log)
    assert replay_main([str(tmp_path / "race.kismet"), "--review", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["players"] == [s.as_json() for s in seats]
    assert report["rounds"] == [r.as_json() for r in rounds]

    # Knock: the throw of the first knock test, where all three things happened.
    log, a, b = knock_opening()
    t = 10_000
    log.stamp(a, {"type": "roll"}, t)
    log.stamp(a, {"type": "pass"}, t + 500)
    log.stamp(b, {"type": "roll"}, t + 3000)
    log.stamp(b, {"type": "lay", "card": log.game._matches(b)[0]}, t + 3500)  # type: ignore[attr-defined]
    log.stamp(a, {"type": "roll"}, t + 6000)
    log.stamp(b, {"type": "knock"}, t + 6500)
    chances, throws = read_knock(log.header, log.events)
    first, laid, knocked = throws
    assert first.roller == a and first.overlooked and first.missed_by == [b] and first.notable
    assert laid.laid and not laid.notable  # a plain lay: nothing to learn
    assert [(k.seat, k.judgement, k.cost) for k in knocked.knocks] == [
        (b, "wrong", chances[b].wrong_cost)
    ]
    write_log(tmp_path / "knock.kismet", log)
    assert replay_main([str(tmp_path / "knock.kismet"), "--review", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [t["no"] for t in report["throws"]] == [first.no, knocked.no]
    assert report["throws"][0]["overlooked"] == first.overlooked and report["throws"][0][
        "missed_by"
    ] == [b]
