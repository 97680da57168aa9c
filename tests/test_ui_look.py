"""How the screens look after things a newcomer does: resize the window, press a key twice,
read a long line at 80 columns. Scripted positions (tests/scripted.py), the real app driven
by Pilot.
"""

from __future__ import annotations

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.rules import HOST
from tests import uiutil as snaps
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]


def log_rows(app) -> list[str]:
    """The move log's lines as drawn (all of them, scrolled or not)."""
    log = app.screen.query_one("#movelog")
    return ["".join(segment.text for segment in strip).rstrip() for strip in log.lines]


def sentences_said(app) -> list[str]:
    return [text.plain for text in app.screen.query_one("#movelog").said]


@pytest.mark.parametrize(
    "game, screen", [(snaps.dice_mid_game, "DiceScreen"), (snaps.knock_mid_game, "KnockScreen")]
)
async def test_the_move_log_wraps_again_when_the_window_shrinks(game, screen):
    app = KismetApp(game(), address="this computer")
    async with app.run_test(size=(160, 40)) as pilot:
        await snaps.until_screen(screen)(pilot)
        await pilot.resize_terminal(80, 24)
        log = app.screen.query_one("#movelog")
        await wait_for(
            pilot,
            lambda: log.wrapped_at == log.scrollable_content_region.width,
            what="the log wrapped again",
        )
        width = log.scrollable_content_region.width
        rows = log_rows(app)
        assert rows and max(len(row) for row in rows) <= width
        # Nothing cut: the rows read back as every sentence, word for word.
        assert " ".join(" ".join(rows).split()) == " ".join(" ".join(sentences_said(app)).split())


async def test_knock_move_log_uses_the_width_of_a_big_window():
    app = KismetApp(snaps.knock_mid_game(), address="this computer")
    async with app.run_test(size=(200, 50)) as pilot:
        await snaps.until_screen("KnockScreen")(pilot)
        log = app.screen.query_one("#movelog")
        await wait_for(
            pilot,
            lambda: log.wrapped_at == log.scrollable_content_region.width,
            what="the log wrapped again",
        )
        assert log.scrollable_content_region.width > 150
        # Every sentence of this game fits one line of a 175-column log.
        assert len(log_rows(app)) == len(sentences_said(app))


def knock_after_ana_knocked():
    def ana_knocked_on_another(game):
        view = game.view(0)
        roll = view.get("roll") or {}
        return (
            view["phase"] == "play"
            and roll.get("roller") not in (None, 0)
            and 0 in roll.get("knocked", [])
            and view.get("stage") == "decide"
        )

    return snaps.ScriptedClient.at("knock", snaps.THREE, until=ana_knocked_on_another)


@pytest.mark.parametrize(
    "game, first_words",
    [
        (
            snaps.knock_mid_game,
            "Knock on Bot 1 (easy)'s throw: k, or the key of the card you would lay",
        ),
        (knock_after_ana_knocked, "You knocked on "),
    ],
)
async def test_knock_says_what_to_do_in_sentences_that_fit_80_columns(game, first_words):
    app = KismetApp(game(), address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("KnockScreen")(pilot)
        said = app.screen.say(app.screen.view()).plain.split("\n")
        assert len(said) == 2 and said[1].startswith(first_words)
        assert all(len(line) <= 80 for line in said)


async def test_h_twice_on_one_throw_logs_the_hint_once():
    app = KismetApp(snaps.dice_mid_game(), address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("DiceScreen")(pilot)
        screen = app.screen
        answers = []
        shown = screen.show_hint
        screen.show_hint = lambda choices: (answers.append(choices), shown(choices))
        await pilot.press("h")
        await wait_for(pilot, lambda: len(answers) == 1, what="the first hint")
        await pilot.press("h")
        await wait_for(pilot, lambda: len(answers) == 2, what="the second hint")
        await pilot.pause()
        assert sum(text.plain.startswith("Hint") for text in screen.query_one("#movelog").said) == 1
        assert screen.hint_hold is not None or screen.hint_box is not None  # still marked


TWO = ["Ana", "Bo"]


def race_whole_game():
    return snaps.ScriptedClient.at(
        "race", TWO
    )  # to its end (two rounds of it end with every match grabbed)


def assert_grabbed_all_after_who_took_them(lines: list[str]) -> None:
    ends = [i for i, line in enumerate(lines) if line == "Every matching card has been grabbed."]
    assert ends, "this playout never ends a round with every match grabbed"
    for i in ends:
        assert " takes the " in lines[i - 1] or " grabbed a wrong " in lines[i - 1], lines[
            i - 3 : i + 1
        ]


def test_race_history_says_every_card_was_grabbed_after_who_took_them():
    from kismet_tui.words.log import history_lines

    client = race_whole_game()
    lines = [words for words, _ in history_lines("race", client.applied_notes(), TWO, limit=10_000)]
    assert_grabbed_all_after_who_took_them(lines)


async def test_race_log_says_every_card_was_grabbed_after_who_took_them():
    """The same as the game goes (each event as a host message), here through the replay."""
    from kismet_tui.replay import ReplayApp

    client = race_whole_game()
    app = ReplayApp(client.header, client.events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("RaceScreen")(pilot)
        screen = app.screen
        app.publish([app.source.next_event() for _ in client.events])
        await wait_for(pilot, lambda: screen.version >= len(client.events), what="every event")
        assert_grabbed_all_after_who_took_them(
            [text.plain for text in screen.query_one("#movelog").said]
        )


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_space_in_the_help_turns_a_whole_page(size):
    app = KismetApp(snaps.dice_mid_game(), address="this computer")
    async with app.run_test(size=size) as pilot:
        await snaps.until_screen("DiceScreen")(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="the help")
        scroll = app.screen.query_one("#help-scroll")
        shown = scroll.scrollable_content_region.height
        assert scroll.max_scroll_y > shown  # a page to turn, and more
        await pilot.press("space")
        assert scroll.scroll_y == shown - 1  # the last line read stays in view
        await pilot.press("pageup")
        assert scroll.scroll_y == 0


@pytest.mark.parametrize("ascii_drawing", [False, True], ids=["unicode", "ascii"])
def test_race_grab_mark_is_not_the_pile_mark(ascii_drawing):
    from kismet_tui.screens.race import render_players
    from kismet_tui.widgets.glyphs import glyph, use_ascii
    from tests.uiutil import race_position

    game = race_position(2)
    game.apply(HOST, {"type": "timeout"}, 3000)  # the throw
    game.apply(1, {"type": "grab", "card": 5}, 3400)
    use_ascii(ascii_drawing)
    try:
        rows = render_players(game.view(0), ["Ana", "Bo"], 0).plain.split("\n")
        pile, grab = glyph("▮"), glyph("✋")
        others = [glyph(char) for char in ("·", "–", "≈", "→", "↑↓")]
    finally:
        use_ascii(False)
    assert pile != grab
    assert others == (
        [".", "-", "~", "->", "up/dn"] if ascii_drawing else ["·", "–", "≈", "→", "↑↓"]
    )
    assert rows[1].rstrip().endswith(f"{pile} {grab}") and not rows[0].rstrip().endswith(grab)


@pytest.mark.network
async def test_a_refusal_goes_from_the_top_line_once_you_have_acted(tmp_path):
    from tests.netutil import running_host
    from tests.uiutil import solo_dice

    async with running_host(tmp_path) as host:
        async with solo_dice(host) as (app, pilot, client):
            game = client.game
            await pilot.press("r")
            await wait_for(pilot, lambda: game.view(0)["rolls_used"] == 1, what="the first throw")
            await pilot.press("1", "2", "3", "4", "5", "r")
            assert app.notice is not None and app.notice.words.startswith("All five dice are held")
            await pilot.press("enter")  # scoring is what the refusal asked for
            await wait_for(
                pilot, lambda: game.view(0)["turn"] > 0 or game.finished, what="the score"
            )
            await pilot.pause()
            assert app.notice is None


def footer_words(app) -> list[str]:
    """What the footer offers now, in order (enabled, shown bindings)."""
    return [
        active.binding.description
        for active in app.screen.active_bindings.values()
        if active.enabled and active.binding.show
    ]


async def test_replay_footer_says_play_while_paused_and_fits_at_the_end():
    from kismet_tui.replay import ReplayApp

    source = snaps.ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"])
    app = ReplayApp(source.header, source.events, paused=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("DiceScreen")(pilot)
        assert "Play" in footer_words(app) and "Pause" not in footer_words(app)
        await pilot.press("space")
        await wait_for(
            pilot,
            lambda: "Pause" in footer_words(app) and "Play" not in footer_words(app),
            what="Pause in the footer",
        )
        await pilot.press("space")
        await wait_for(pilot, lambda: "Play" in footer_words(app), what="Play in the footer")
        # The rest of the game at once (a few events may have played while it was playing).
        app.publish([app.source.next_event() for _ in range(len(source.events) - app.source.index)])
        await wait_for(pilot, lambda: type(app.screen).__name__ == "EndScreen", what="the end")
        await pilot.press("escape")  # the board, with the replay's footer
        await wait_for(pilot, lambda: type(app.screen).__name__ == "DiceScreen", what="the board")
        await wait_for(pilot, lambda: "Restart" in footer_words(app), what="the end keys")
        words = footer_words(app)
        assert not {"Play", "Pause", "Step", "Speed", "End"} & set(words), words
        assert "Back" in words, words
        await wait_for(
            pilot,
            lambda: all(key.region.width > 0 for key in app.screen.query("FooterKey")),
            what="the footer drawn",
        )
        assert all(key.region.right <= 80 for key in app.screen.query("FooterKey"))


@pytest.mark.network
async def test_lobby_y_says_not_ready_once_you_are_ready(tmp_path):
    from tests.netutil import connected, running_host
    from tests.uiutil import make_app

    async with running_host(tmp_path) as host, connected(host, "Bo") as other:
        app, client = make_app(host, "Ana")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: client.state == "connected", what="connection")
            await other.create_table("dice", {})
            await pilot.press("r")
            await wait_for(pilot, lambda: bool(app.screen.tables), what="the table list")
            await pilot.press("enter")
            await wait_for(pilot, lambda: client.seat == 1, what="a seat")
            await wait_for(pilot, lambda: "Ready" in footer_words(app), what="y Ready")
            assert "Not ready" not in footer_words(app)
            await pilot.press("y")
            await wait_for(pilot, lambda: other.table["seats"][1]["ready"], what="ready")
            await wait_for(pilot, lambda: "Not ready" in footer_words(app), what="y Not ready")
            assert "Ready" not in footer_words(app)
            await pilot.press("y")
            await wait_for(
                pilot, lambda: not other.table["seats"][1]["ready"], what="not ready again"
            )
            await wait_for(pilot, lambda: "Ready" in footer_words(app), what="y Ready again")
            await client.close()


def screen_rows(app) -> list[str]:
    """The whole screen as plain text rows, as the terminal shows it."""
    import io

    from rich.console import Console

    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    out = io.StringIO()
    Console(file=out, color_system=None, width=app.size.width, height=app.size.height).print(
        update, end=""
    )
    return out.getvalue().split("\n")


def nothing_beside(app, box) -> list[str]:
    """The text on the box's rows left and right of it (there should be none)."""
    region = box.region
    rows = screen_rows(app)[region.y : region.bottom]
    return [side for row in rows for side in (row[: region.x], row[region.right :]) if side.strip()]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_no_cut_words_of_the_board_beside_the_end_box(size):
    app = KismetApp(
        snaps.ScriptedClient.at("dice", ["Ana", "Bot 1 (medium)"]), address="this computer"
    )
    async with app.run_test(size=size) as pilot:
        await snaps.until_screen("EndScreen")(pilot)
        box = app.screen.query_one("#ranking").parent
        assert nothing_beside(app, box) == []


async def test_no_cut_words_of_the_lobby_beside_the_new_table_form():
    app = KismetApp(snaps.lobby_client(), address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("LobbyScreen")(pilot)
        for number in range(30):
            app.screen.query_one("#lobbylog").write(
                f"Line {number} of the lobby's log, long enough to reach its right edge."
            )
        await pilot.press("l")  # (leave the scripted table: the form opens only away from one)
        app.client.table = None
        app.screen.refresh_bindings()
        await pilot.press("n")
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "NewTableScreen", what="the form"
        )
        await pilot.press("right")  # race: the form's longest
        await pilot.pause()
        assert nothing_beside(app, app.screen.query_one("#form").parent) == []


def test_a_name_too_long_loses_its_remark_before_it_is_cut():
    from kismet_tui.screens.knock import render_others
    from kismet_tui.screens.race import render_players
    from kismet_tui.widgets.names import fit

    assert fit("Bot 1 (medium)", 9) == "Bot 1"
    assert fit("Bot 1 (medium)", 14) == "Bot 1 (medium)"
    assert fit("Bartholomew (Bart) Longname", 12) == "Bartholomew…"  # still too long: cut
    names = ["Ana", "Bot 1 (medium)", "Bot 2 (hard)"]
    race = snaps.race_mid_round().game.view(0)
    knock = snaps.knock_mid_game().game.view(0)
    for text in (render_players(race, names, 0).plain, render_others(knock, names, 0).plain):
        assert "…" not in text and "Bot 1 " in text and "Bot 2 " in text, text


@pytest.mark.parametrize(
    "width, expected", [(80, "Dice bot: 40 %"), (120, "Preparing the perfect dice bot: 40 %")]
)
async def test_the_build_words_never_cut_the_place_name(width, expected, monkeypatch):
    from kismet_tui.screens.game import GameScreen
    from kismet_tui.widgets.status import StatusBar

    # The screen's clock, switched off until the test says (its once-a-second interval, made
    # when the screen mounts, may fire mid-test on a slow machine).
    clocks_on, show_clocks = [False], GameScreen.show_clocks
    monkeypatch.setattr(
        GameScreen, "show_clocks", lambda self: show_clocks(self) if clocks_on[0] else None
    )
    app = KismetApp(snaps.dice_mid_game(), address="this computer")
    async with app.run_test(size=(width, 24 if width == 80 else 40)) as pilot:
        await snaps.until_screen("DiceScreen")(pilot)
        # With no clock running (a game without a turn limit): the place name stays whole.
        screen, bar = app.screen, app.screen.query_one(StatusBar)
        bar.set_clock("")
        app.build_words = ("Preparing the perfect dice bot: 40 %", "Dice bot: 40 %")
        await pilot.pause()
        shown = bar.shown
        assert (
            "dice · you are Ana" in shown
            and shown.rstrip().endswith(expected)
            and len(shown) <= width
        ), shown
        # A running clock is what matters now [D31]: it stays whole, the place name gives way.
        clocks_on[0] = True
        screen.show_clocks()
        await pilot.pause()
        shown = bar.shown
        assert (
            "Your turn: 1:00 left" in shown
            and shown.rstrip().endswith(expected)
            and len(shown) <= width
        ), shown


async def test_a_notice_too_long_for_the_line_is_shown_whole_at_once():
    """A long notice grows the bar to the lines it needs, all read at once (not pages turning
    every few seconds), and gives the rows back when it goes."""
    from kismet_tui.widgets.status import StatusBar

    words = (
        "Not everyone is ready: waiting for Bot 1 (medium), Bot 2 (hard), Bartholomew Longname "
        "and Cy to press r before the game can start again."
    )
    app = KismetApp(snaps.dice_mid_game(), address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("DiceScreen")(pilot)
        bar = app.screen.query_one(StatusBar)
        app.notify(words, timeout=30)
        clock = "  │  Your turn: 1:00 left"
        await wait_for(pilot, lambda: bar.region.height > 1, what="the bar on more lines")
        lines = bar.shown.splitlines()
        # The game's clock stays beside the notice, at the end of its last line [D31].
        assert lines[-1].rstrip().endswith(clock), lines
        assert 1 < len(lines) <= 3 and all(len(line) <= 80 for line in lines), lines
        read = " ".join(
            line.split(clock)[0].strip()[1:] if n == 0 else line.split(clock)[0]
            for n, line in enumerate(lines)
        )
        assert " ".join(read.split()) == words  # every word, in order, none lost, no "…"
        assert bar.page_timer is None, "nothing turns"
        app.clear_notice(app.notice)
        await wait_for(pilot, lambda: bar.region.height == 1, what="the rows given back")


def knock_next_throw_after_ana_knocked():
    def next_throw(game):
        view = game.view(0)
        roll = view.get("roll") or {}
        return (
            view["phase"] == "play" and 0 in roll.get("knocked", []) and view.get("stage") == "roll"
        )

    return snaps.ScriptedClient.at("knock", snaps.THREE, until=next_throw)


@pytest.mark.parametrize("window_open", [True, False], ids=["in-the-window", "after-it"])
async def test_knocked_marks_last_only_while_the_throw_may_be_knocked_on(window_open):
    client = knock_next_throw_after_ana_knocked()
    roll_from = client.game.view(0)["roll_from"]
    client.clock_ms = roll_from - 500 if window_open else roll_from + 1
    app = KismetApp(client, address="this computer")
    async with app.run_test(size=(80, 24)) as pilot:
        await snaps.until_screen("KnockScreen")(pilot)
        ana = str(app.screen.query_one("#others").content).split("\n")[0]
        assert ana[1:].startswith("Ana") and ("knocked" in ana) is window_open, ana


@pytest.mark.parametrize("size, rows", [((80, 24), 19), ((120, 40), 37)])
async def test_the_dice_scorecard_fills_a_tall_window(size, rows):
    """At 120x40 the card's rows are spaced out to the window's height, not 19 rows of it
    empty under the card; at 80x24 it is as tight as before."""
    app = KismetApp(snaps.dice_mid_game(), address="this computer")
    async with app.run_test(size=size) as pilot:
        await snaps.until_screen("DiceScreen")(pilot)
        card = app.screen.drawn["scorecard"].plain.split("\n")
        assert len(card) == rows
        assert "Ana" in card[0] and card[-1].startswith("Total")
