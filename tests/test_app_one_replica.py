"""The app keeps one replica per client: the move log's words come from the notes the
client's replica made, never from a game built or played again in the screen layer."""

from __future__ import annotations

import ast
from pathlib import Path

from kismet_tui.rules import GAMES, SeededRNG, new_game
from kismet_tui.rules.playout import random_playout
from kismet_tui.words.log import event_lines, history_lines

APP = Path(__file__).resolve().parent.parent / "kismet_tui"
# What builds a game or plays events on one: only the game's sources (net/client.py,
# replay.py), the bots and the solver may use them.
GAME_MAKERS = {"new_game", "game_from_header", "replay", "apply_event"}
SCREEN_LAYER = ["screens", "widgets", "words"]


def imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and "rules" in node.module.split("."):
            names.update(alias.name for alias in node.names)
    return names


def test_no_screen_widget_or_words_module_builds_or_plays_a_game():
    offenders = {
        str(path.relative_to(APP)): sorted(imported_names(path) & GAME_MAKERS)
        for folder in SCREEN_LAYER
        for path in (APP / folder).rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_history_is_the_lines_of_each_events_notes_in_turn():
    """Catching up (a screen opened mid-game) says exactly what following the game event by
    event says, from the same notes, and `first_seq` skips the events already logged."""
    names = ["Ana", "Bo", "Cy"]
    for ruleset in GAMES:
        game = new_game(ruleset, names, b"history", start_ms=0)
        events = random_playout(
            new_game(ruleset, names, b"history", start_ms=0),
            SeededRNG(b"history-play"),
            max_gap_ms=400,
        )[:120]
        notes = [game.apply(event["seat"], event["action"], event["t"]) for event in events]
        one_by_one = [
            line for event_notes in notes for line in event_lines(ruleset, event_notes, names)
        ]
        assert one_by_one, f"{ruleset}: the playout said nothing"
        assert history_lines(ruleset, notes, names, limit=10_000) == one_by_one
        later = [
            line for event_notes in notes[50:] for line in event_lines(ruleset, event_notes, names)
        ]
        assert history_lines(ruleset, notes, names, first_seq=51, limit=10_000) == later
        assert history_lines(ruleset, notes, names, limit=5) == one_by_one[-5:]
