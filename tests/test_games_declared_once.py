"""The list of games is declared once, by the engine (kismet_tui/rules/__init__.py `GAMES`,
from `RULESETS`): the wire, the app's menus, the help and the records read it from there.
What must stay written out per game (a menu's line, the lobby's name, a bot's policy, the
wire's vocabulary, a help page, the docs) is checked here to name exactly those games, in
that order where it lists them. Adding a game means adding it to RULESETS; this test then
says everything else that must learn of it."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from kismet_tui.rules import GAMES, RULESETS

ROOT = Path(__file__).resolve().parent.parent


def test_the_games_are_the_engines_rulesets_in_order():
    assert GAMES == tuple(RULESETS) == ("dice", "race", "knock")


def test_the_wire_the_menus_the_help_and_the_records_read_the_one_list():
    from kismet_tui.screens import help, new_table, records, review
    from protocol import requests

    assert requests.RULESETS is GAMES
    assert review.REVIEWED is GAMES
    for module in (help, new_table, records):
        assert module.GAMES is GAMES, module.__name__


def test_what_is_written_out_per_game_names_every_game_and_no_other():
    from kismet_tui.screens.lobby import GAME_NAMES
    from kismet_tui.screens.new_table import GAME_LINES
    from protocol.actions import VOCABULARY
    from server.reaction import ANSWERS_A_THROW

    assert tuple(GAME_LINES) == GAMES  # the new table's menu, in its order
    assert set(GAME_NAMES) == set(GAMES)
    assert set(VOCABULARY) == set(GAMES)
    assert {ruleset for ruleset, _ in ANSWERS_A_THROW} <= set(GAMES)


def test_each_game_has_its_screen_its_bots_and_its_help_page():
    from kismet_tui.app import game_screen_for
    from kismet_tui.bots.levels import policy_class

    pages = sorted(
        entry.name
        for entry in resources.files("kismet_tui.help").iterdir()
        if entry.name.endswith(".md")
    )
    assert pages == sorted(f"{game}.md" for game in GAMES)
    for game in GAMES:
        assert game_screen_for(game).RULESET == game
        assert callable(policy_class(game))
    with pytest.raises(ValueError):
        game_screen_for("poker")
    with pytest.raises(KeyError):
        policy_class("poker")


def test_the_docs_list_the_same_games():
    listed = ", ".join(f"`{game}`" for game in GAMES)
    assert f"Each game ({listed})" in (ROOT / "docs" / "design.md").read_text()
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    assert f"`ruleset` str ({listed})" in protocol
    assert f"'ruleset' must be one of: {', '.join(GAMES)}." in protocol
    quoted = ", ".join(f'`"{game}"`' for game in GAMES[:-1]) + f' or `"{GAMES[-1]}"`'
    assert f"| `ruleset` | {quoted} |" in protocol
    rules = (ROOT / "docs" / "rules.md").read_text()
    sections = re.findall(r"^## \d+\. `(\w+)`:", rules, flags=re.M)
    assert tuple(sections) == GAMES
    readme = (ROOT / "README.md").read_text()
    opening, keys = readme.split("## Install")[0], readme.split("## Keys")[1].split("\n## ")[0]
    for part in (opening, keys):  # the games, then each game's keys
        assert tuple(re.findall(r"^- \*\*(\w+)\*\*: ", part, flags=re.M)) == GAMES
