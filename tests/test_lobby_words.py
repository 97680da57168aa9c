"""The lobby's words on the table you are at, read as a new player reads them at 80x24: the
seconds before unready seats are freed stay on one line with their unit, and the owner is
told when everyone is ready and only their start is awaited."""

from __future__ import annotations

from kismet_tui.screens.lobby import render_my_table

PANEL = 32  # the lobby's table panel at 80 columns ("Start asked: press y within 56 s")


def table(bo_ready: bool, free_at: int | None) -> dict[str, object]:
    return {
        "id": 1,
        "ruleset": "race",
        "state": "lobby",
        "max_seats": 8,
        "owner": 1,
        "free_unready_at": free_at,
        "options": {},
        "seats": [
            {"name": "root", "client_id": 1, "ready": True},
            {"name": "Bot 1", "client_id": None, "bot": "medium", "ready": True},
            {"name": "Bo", "client_id": 2, "ready": bo_ready},
        ],
    }


def test_the_seconds_before_seats_are_freed_fit_the_panel_whole():
    shown = render_my_table(table(False, 60_000), 1, now_ms=4_000).plain
    assert "56 s." in shown
    assert all(len(line) <= PANEL for line in shown.splitlines()), shown


def test_the_owner_is_told_that_everyone_is_ready_and_g_starts():
    assert "g starts the game" in render_my_table(table(True, None), 1).plain
    assert "g starts the game" not in render_my_table(table(False, None), 1).plain
    # the others wait for the owner: told so, not given the owner's key
    said = render_my_table(table(True, None), 2).plain
    assert "g starts" not in said and "waiting for\nroot to start" in said
