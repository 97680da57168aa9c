"""ASCII drawing for terminals without UTF-8, and the recent games kismet-replay offers."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from rich.text import Text

from kismet_tui import cli, recent
from kismet_tui.widgets import glyphs
from kismet_tui.widgets.art import card_lines, die_lines
from tests.uiutil import write_log


@pytest.fixture
def ascii_on():
    glyphs.use_ascii(True)
    yield
    glyphs.use_ascii(False)


def test_the_locale_decides_utf8_even_after_python_coerced_c():
    assert glyphs.locale_has_utf8({"LANG": "en_GB.UTF-8"})
    assert glyphs.locale_has_utf8({"LANG": "C.utf8"})
    assert not glyphs.locale_has_utf8({"LANG": "C"})
    assert not glyphs.locale_has_utf8({})
    # Python sets LC_CTYPE=C.UTF-8 by itself under LANG=C (PEP 538): still no UTF-8 terminal.
    assert not glyphs.locale_has_utf8({"LANG": "C", "LC_CTYPE": "C.UTF-8"})
    assert not glyphs.locale_has_utf8({"LC_ALL": "C", "LANG": "en_GB.UTF-8"})
    assert glyphs.locale_has_utf8({"LC_CTYPE": "de_DE.UTF-8", "LANG": "C"})


def test_ascii_dice_and_cards_are_ascii_and_keep_their_size(ascii_on):
    drawings = [die_lines(face, held=held) for face in (None, 1, 5, 6) for held in (False, True)]
    drawings += [card_lines(None, None), card_lines(7, 3, "c", owner="Bo", state="grabbed")]
    for lines in drawings:
        for line in lines:
            assert line.plain.isascii(), line.plain
        assert len({line.cell_len for line in lines}) == 1
    glyphs.use_ascii(False)
    assert [line.cell_len for line in die_lines(5)] == [line.cell_len for line in drawings[4]]


def test_to_ascii_keeps_every_cell_in_place():
    frame = "\x1b[1m╭─────╮\x1b[0m ● · Zoë 漢字 a…b ✓ \U0001f600"
    out = glyphs.to_ascii(frame)
    assert out.isascii()
    assert cell_len(Text.from_ansi(out).plain) == cell_len(Text.from_ansi(frame).plain)
    assert "+-----+" in out and "Zoe" in out


def test_the_app_writes_ascii_in_ascii_mode(ascii_on, monkeypatch):
    from textual.app import App
    from textual.drivers.headless_driver import HeadlessDriver

    from kismet_tui.app import KismetApp

    written = []

    class Recording(HeadlessDriver):
        def write(self, data: str) -> None:
            written.append(data)

    monkeypatch.setattr(App, "get_driver_class", lambda self: Recording)  # this platform's
    driver_class = KismetApp(client=None).driver_class
    driver = driver_class.__new__(driver_class)
    driver.write("┌─┐ ●")
    assert written == ["+-+ o"]


def test_solo_games_are_kept_in_the_user_data_folder(fresh_user_folders):
    folder = recent.solo_state_dir()
    assert str(folder).startswith(str(fresh_user_folders / "data"))
    assert folder / "games" in recent.game_folders()


def test_replay_without_a_file_lists_recent_games_and_plays_the_chosen(
    tmp_path, monkeypatch, capsys
):
    games = recent.solo_state_dir() / "games"
    games.mkdir(parents=True, exist_ok=True)
    for old in games.glob("*.kismet"):
        old.unlink()
    assert cli.replay_main([]) == 1
    assert "no saved games yet" in capsys.readouterr().err
    write_log(games / "a-dice.kismet", "dice", ["Ana"], b"one", {})
    write_log(games / "b-knock.kismet", "knock", ["Ana", "Bot 1 (easy)"], b"two", {})
    import os

    os.utime(games / "a-dice.kismet", (1, 1))  # the older one
    played = []
    from kismet_tui import replay

    monkeypatch.setattr(replay.ReplayApp, "run", lambda self: played.append(self.source.header))
    monkeypatch.setattr("builtins.input", lambda prompt: "2")
    assert cli.replay_main([]) == 0
    listing = capsys.readouterr().out
    first, second = [line for line in listing.splitlines() if line.strip()[:2] in ("1.", "2.")]
    assert "knock" in first and "Ana, Bot 1 (easy)" in first and "finished" in first
    assert "dice" in second
    assert played and played[0]["ruleset"] == "dice"


def test_a_wrong_choice_is_answered_and_nothing_plays(tmp_path):
    paths = [tmp_path / "x.kismet"]
    write_log(paths[0], "dice", ["Ana"], b"x", {})
    said = []
    assert recent.choose(paths, ask=lambda prompt: "9", say=said.append) is None
    assert "'9' is not a number from 1 to 1." in said[-1]
    assert recent.choose(paths, ask=lambda prompt: "", say=said.append) == paths[0]


def knock_prelay():
    from tests.scripted import ScriptedClient

    return ScriptedClient.at(
        "knock", ["Ana", "Bot 1 (medium)"], until=lambda g: g.phase == "prelay_commit"
    )


def knock_owned_and_watched():
    """The owner of a knock table of people, somebody watching, on another's throw: the
    footer's longest line (its keys: card, knock, b to hand the throw to a bot, talk, mute
    the watchers, leave, quit, help were 88 cells, cutting the help key off)."""
    from tests.scripted import ScriptedClient

    def another_throw(game):
        roll = game.view(0).get("roll") or {}
        return roll.get("roller") not in (None, 0) and roll.get("status") == "deciding"

    client = ScriptedClient.at("knock", ["Ana", "Bo", "Cy"], until=another_throw)
    client.table["spectators"] = [{"name": "Wes", "client_id": 9}]
    return client


@pytest.mark.ui
@pytest.mark.timeout(60)
@pytest.mark.parametrize("drawing", ["ascii", "unicode"])
@pytest.mark.parametrize(
    "scene",
    [
        "lobby_client",
        "dice_mid_game",
        "race_mid_round",
        "knock_mid_game",
        "knock_prelay",
        "knock_owned_and_watched",
    ],
)
async def test_every_footer_fits_80_columns(scene, drawing):
    """The footer lists the keys that work now, the help key last; at 80 columns it must all
    show, drawn in ASCII too, where keys are named in words (no "⌫" on a LANG=C terminal: the
    knock pre-lay footer was 82 cells then, cutting the help key to "? Hel")."""
    from textual.widgets._footer import FooterKey

    from kismet_tui.app import KismetApp
    from tests import uiutil
    from tests.uiutil import wait_for

    glyphs.use_ascii(drawing == "ascii")
    try:
        client = (
            globals()[scene]()
            if scene in ("knock_prelay", "knock_owned_and_watched")
            else getattr(uiutil, scene)()
        )
        app = KismetApp(client, address="this computer")
        async with app.run_test(size=(80, 24)) as pilot:

            def keys():
                return list(app.screen.query(FooterKey))

            await wait_for(
                pilot,
                lambda: (
                    any(k.description == "Help" for k in keys())
                    and all(k.region.width for k in keys())
                ),
                what="the footer",
            )
            await pilot.pause()
            assert max(k.region.right for k in keys()) <= 80, [
                (k.key_display, k.region) for k in keys()
            ]
    finally:
        glyphs.use_ascii(False)
