"""Every action of the three game screens by mouse (issue 32): Pilot clicks on a die, a box,
a card, a button, each doing what its key does, and a click on something the engine would
refuse doing nothing but say why.

The app is seat 0 of a RefereeClient (tests/footer_util.py): a game replica from a
seeded playout, its clock frozen, and every send judged by a copy of the engine the host
applies, so "accepted" means the host would take it. Where a thing is on the screen is found
from the text the screen drew (a button's label, a box's name), never from fixed cells.
"""

from __future__ import annotations

import copy

import pytest

from kismet_tui.app import KismetApp
from kismet_tui.rules import IllegalAction
from kismet_tui.screens.dice import ALL_HELD, SHORT, load_advisor
from tests.footer_util import RefereeClient
from tests.scripted import OPTIONS, T0, table_for
from tests.uiutil import wait_for

pytestmark = [pytest.mark.ui, pytest.mark.timeout(120)]

TWO = ["Ana", "Bot 1 (medium)"]


async def open_game(pilot, app, screen: str):
    await wait_for(
        pilot,
        lambda: type(app.screen).__name__ == screen and app.screen.is_mounted,
        what=f"the {screen}",
    )
    await pilot.pause()
    return app.screen


def running(client: RefereeClient) -> tuple[KismetApp, list[str]]:
    app = KismetApp(client, address="this computer")
    refusals: list[str] = []
    # (as the app says them: seat numbers as names)
    app.show_refusal = lambda words: refusals.append(app.seat_words(words))  # type: ignore[method-assign]
    return app, refusals


def where(text, word: str, line: int | None = None) -> tuple[int, int]:
    """(x, y) of the first cell of `word` in a drawn Text (on `line` if given)."""
    lines = text.plain.split("\n")
    for y, row in enumerate(lines):
        if (line is None or y == line) and word in row:
            return row.index(word), y
    raise AssertionError(f"{word!r} is not drawn: {lines}")


def accepted(client: RefereeClient) -> list[dict]:
    return [action for action, reason in client.sent if reason is None]


# ---- dice -----------------------------------------------------------------------------------
def dice_at(until) -> RefereeClient:
    return RefereeClient.at("dice", TWO, until=until)


def mine_thrown_once(game) -> bool:
    view = game.view(0)
    return view["turn"] >= 2 and view["current"] == 0 and view["rolls_used"] == 1


def mine_not_thrown(game) -> bool:
    view = game.view(0)
    return view["turn"] >= 2 and view["current"] == 0 and view["rolls_used"] == 0


def theirs(game) -> bool:
    view = game.view(0)
    return view["turn"] >= 2 and view["current"] == 1 and view["rolls_used"] == 1


def die_offset(pos: int) -> tuple[int, int]:
    return pos * 8 + 3, 2  # (7 cells a die, a space between, at 80x24 for two players)


async def test_a_click_on_a_die_holds_it_and_another_releases_it_then_throw_keeps_it():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        await pilot.click("#dice", offset=die_offset(1))
        await wait_for(pilot, lambda: screen.held == {1}, what="die 2 held by a click")
        await pilot.click("#dice", offset=(3 * 8 + 3, 5))  # die 4's label line
        await wait_for(
            pilot, lambda: screen.held == {1, 3}, what="die 4 held by a click on its label"
        )
        await pilot.click("#dice", offset=die_offset(3))
        await wait_for(pilot, lambda: screen.held == {1}, what="die 4 released by a click")
        x, y = where(screen.drawn["buttons"], "Throw")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: client.sent, what="the throw sent")
        assert accepted(client) == [{"type": "roll", "hold": [1]}] and not refusals


async def test_a_click_on_a_box_chooses_it_and_a_second_scores_it():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        open_boxes = [box for box, entry in screen.view()["preview"].items() if entry["legal"]]
        box = next(b for b in open_boxes if b != screen.cursor)
        card = screen.drawn["scorecard"]
        x, y = where(card, SHORT[box])
        await pilot.click("#scorecard", offset=(x + 1, y))
        await wait_for(pilot, lambda: screen.cursor == box, what="the box chosen by a click")
        assert not client.sent, "a first click only chooses the box"
        await pilot.click("#scorecard", offset=(x + 1, y))
        await wait_for(pilot, lambda: client.sent, what="the score sent")
        assert accepted(client) == [{"type": "score", "box": box}] and not refusals


async def test_the_score_button_scores_the_chosen_box():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        chosen = screen.cursor
        x, y = where(screen.drawn["buttons"], "Score")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: client.sent, what="the score sent")
        assert accepted(client) == [{"type": "score", "box": chosen}] and not refusals


async def test_throw_by_its_button_and_a_die_before_the_first_throw_says_why():
    client = dice_at(mine_not_thrown)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        assert "Score" not in screen.drawn["buttons"].plain, "no Score button before a throw"
        await pilot.click("#dice", offset=die_offset(0))
        await wait_for(pilot, lambda: refusals, what="a word on the die clicked too early")
        assert refusals == ["There is nothing to hold before the first roll."]
        assert screen.held == set() and not client.sent
        x, y = where(screen.drawn["buttons"], "Throw")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(pilot, lambda: client.sent, what="the throw sent")
        assert accepted(client) == [{"type": "roll", "hold": []}]


async def test_the_hint_is_a_button():
    load_advisor()
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        await wait_for(
            pilot, lambda: "Hint" in screen.drawn["buttons"].plain, what="the Hint button"
        )
        x, y = where(screen.drawn["buttons"], "Hint")
        await pilot.click("#buttons", offset=(x, y))
        await wait_for(
            pilot, lambda: screen.hint_key is not None, what="the hint shown", seconds=60
        )
        assert any(line.plain.startswith("Hint") for line in screen.movelog().said)
        assert not client.sent and not refusals, "a hint only marks: the player decides"


async def test_clicks_on_anothers_turn_and_on_a_filled_box_say_the_engines_words():
    client = dice_at(theirs)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        assert screen.drawn["buttons"].plain.strip() == "", "no buttons on another's turn"
        await pilot.click("#dice", offset=die_offset(2))
        await wait_for(pilot, lambda: refusals, what="a word on the die")
        assert refusals == ["Not your turn: Bot 1 (medium) is rolling."]
        assert screen.held == set() and not client.sent


async def test_a_click_on_a_filled_box_says_why_and_keeps_the_choice():
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        filled = next(box for box, value in screen.view()["cards"][0].items() if value is not None)
        chosen = screen.cursor
        x, y = where(screen.drawn["scorecard"], SHORT[filled])
        await pilot.click("#scorecard", offset=(x + 1, y))
        await wait_for(pilot, lambda: refusals, what="a word on the filled box")
        probe = copy.deepcopy(client.game)
        with pytest.raises(IllegalAction) as refusal:
            probe.apply(0, {"type": "score", "box": filled}, client.clock_ms)
        assert refusals == [refusal.value.words] and not client.sent and screen.cursor == chosen


async def test_a_hidden_button_does_nothing_and_all_five_held_says_why_as_r_does():
    """What the footer walk asks of keys (shown acts, hidden does not), of buttons: with all
    five dice held the Throw button goes as `r` leaves the footer; the cells it stood on do
    nothing, and Throw asked for anyway (the key, or a click that was on its way) says why."""
    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        x, y = where(screen.drawn["buttons"], "Throw")
        for pos in range(5):
            await pilot.click("#dice", offset=die_offset(pos))
        await wait_for(
            pilot, lambda: screen.held == {0, 1, 2, 3, 4}, what="all five held by clicks"
        )
        await pilot.pause()
        assert "Throw" not in screen.drawn["buttons"].plain
        before = screen.cursor
        await pilot.click("#buttons", offset=(x, y))  # where Throw was
        await pilot.pause()
        assert not client.sent and not refusals and screen.cursor == before
        await screen.action_click("roll")  # a click that was on its way
        await wait_for(pilot, lambda: refusals, what="the word on Throw")
        assert refusals == [ALL_HELD] and not client.sent
        refusals.clear()
        await pilot.press("r")
        await wait_for(pilot, lambda: refusals, what="r's word")
        assert refusals == [ALL_HELD] and not client.sent


# ---- race -----------------------------------------------------------------------------------
THREE = ["Ana", "Bo", "Cy"]


class StampedReferee(RefereeClient):
    """Also notes which way each action went: `act_nowait` is the path a key's grab takes,
    written to the host at once (the host stamps it when it arrives, and applies the
    reaction floor to it [D20]); `act` would wait for the answer first."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.paths: list[str] = []

    def act_nowait(self, action) -> None:
        self.paths.append("nowait")
        super().act_nowait(action)

    async def act(self, action) -> None:
        self.paths.append("wait")
        await super().act(action)


def race_at(until) -> StampedReferee:
    return StampedReferee.at("race", THREE, until=until)


def grabbing_mine_open(game) -> bool:
    view = game.view(0)
    return view["phase"] == "grabbing" and not view["done"][0] and view["round"] >= 1


def counting_down(game) -> bool:
    view = game.view(0)
    return view["phase"] == "countdown" and view["round"] >= 1


def card_offset(pos: int) -> tuple[int, int]:
    from kismet_tui.screens.race import PLACES

    x, y = PLACES[pos]
    return x + 3, y + 1


async def grab_by_click_and_by_key(key: bool) -> tuple[list, list, list]:
    client = race_at(grabbing_mine_open)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "RaceScreen")
        pos = next(card["pos"] for card in screen.view()["circle"] if card is not None)
        if key:
            await pilot.press("abcdefghijk"[pos])
        else:
            await pilot.click("#circle", offset=card_offset(pos))
        await wait_for(pilot, lambda: client.sent, what="the grab sent")
        return client.sent, client.paths, refusals


async def test_a_click_on_a_card_grabs_it_as_its_key_does():
    sent, paths, refusals = await grab_by_click_and_by_key(key=False)
    assert len(sent) == 1 and sent[0][0]["type"] == "grab" and sent[0][1] is None, sent
    assert paths == ["nowait"] and not refusals
    assert (sent, paths) == (await grab_by_click_and_by_key(key=True))[:2], (
        "the click sends what the key sends"
    )


async def test_a_card_clicked_in_the_countdown_is_sent_for_the_hosts_words_as_its_key_is():
    client = race_at(counting_down)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "RaceScreen")
        assert "Pass" not in str(screen.query_one("#clock").content)
        pos = next(card["pos"] for card in screen.view()["circle"] if card is not None)
        await pilot.click("#circle", offset=card_offset(pos))
        await wait_for(pilot, lambda: client.sent, what="the early grab sent")
        ((action, reason),) = client.sent
        assert action["type"] == "grab" and action["card"] == pos and reason, client.sent
        assert client.paths == ["nowait"]


async def test_pass_is_a_button_while_grabbing():
    client = race_at(grabbing_mine_open)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "RaceScreen")
        clock = screen.query_one("#clock")
        await wait_for(pilot, lambda: "Pass" in str(clock.content), what="the Pass button")
        x = (clock.size.width - len(" Pass ")) // 2 + 2
        await pilot.click("#clock", offset=(x, 1))
        await wait_for(pilot, lambda: client.sent, what="the pass sent")
        assert accepted(client) == [{"type": "pass"}] and not refusals


# ---- knock ----------------------------------------------------------------------------------
def knock_at(until) -> RefereeClient:
    return RefereeClient.at("knock", THREE, until=until)


def legal_for_me(game) -> list[dict]:
    return game.legal_actions(0, game.now + 250)  # (the frozen clock: ScriptedClient.at)


def hand_offset(number: int) -> tuple[int, int]:
    return (number - 2) * 7 + 2, 1  # (six cells a card, a space between, at 80x24)


async def click_button(pilot, screen, label: str) -> None:
    x, y = where(screen.query_one("#buttons").text, label)
    await pilot.click("#buttons", offset=(x + 1, y))


async def test_cards_clicked_are_laid_in_advance_undone_and_confirmed():
    header = {
        "ruleset": "knock",
        "seats": THREE,
        "seed": b"mouse",
        "options": OPTIONS["knock"],
        "t0": T0,
    }
    client = RefereeClient(
        header, [], table_for("knock", THREE), clock_ms=T0 + 250
    )  # the game's start
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "KnockScreen")
        chips = screen.view()["chips"]
        first, second = sorted(range(2, 13), key=lambda n: chips[n - 2])[
            :2
        ]  # within the chip limit
        await pilot.click("#hand", offset=hand_offset(first))
        await wait_for(pilot, lambda: screen.chosen == [first], what="a card picked by a click")
        await pilot.click("#hand", offset=hand_offset(second))
        await wait_for(
            pilot, lambda: screen.chosen == [first, second], what="another picked by a click"
        )
        await click_button(pilot, screen, "Undo")
        await wait_for(pilot, lambda: screen.chosen == [first], what="Undo by its button")
        await click_button(pilot, screen, "Confirm")
        await wait_for(pilot, lambda: client.sent, what="the pre-lay sent")
        assert [reason for _, reason in client.sent] == [None] and client.sent[0][0][
            "type"
        ] == "prelay"
        assert not refusals


def deciding_a_lay(game) -> bool:
    legal = legal_for_me(game)
    return (
        game.view(0)["phase"] == "play"
        and not (game.view(0)["roll"] or {}).get("joker")
        and any(a["type"] == "lay" and "extra" not in a for a in legal)
    )


async def test_a_card_clicked_on_your_throw_is_laid_and_pass_is_a_button():
    client = knock_at(deciding_a_lay)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "KnockScreen")
        lay = next(a for a in legal_for_me(client.game) if a["type"] == "lay" and "extra" not in a)
        await pilot.click("#hand", offset=hand_offset(lay["card"]))
        await wait_for(pilot, lambda: client.sent, what="the lay sent")
        assert accepted(client) == [{"type": "lay", "card": lay["card"]}] and not refusals
        client.sent.clear()
        await click_button(pilot, screen, "Pass")
        await wait_for(pilot, lambda: client.sent, what="the pass sent")
        assert accepted(client) == [{"type": "pass"}] and not refusals


def knock_with_a_card(game) -> bool:
    return any(a["type"] == "knock" and "card" in a for a in legal_for_me(game))


async def test_a_card_clicked_on_anothers_throw_knocks_with_it_and_knock_is_a_button():
    client = knock_at(knock_with_a_card)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "KnockScreen")
        knock = next(a for a in legal_for_me(client.game) if a["type"] == "knock" and "card" in a)
        await pilot.click("#hand", offset=hand_offset(knock["card"]))
        await wait_for(pilot, lambda: client.sent, what="the knock sent")
        assert accepted(client) == [{"type": "knock", "card": knock["card"]}] and not refusals
        client.sent.clear()
        await click_button(pilot, screen, "Knock")
        await wait_for(pilot, lambda: client.sent, what="the knock sent")
        assert accepted(client) == [{"type": "knock"}] and not refusals
        assert "Confirm" not in screen.query_one("#buttons").text.plain
        await screen.action_click("confirm")  # a hidden button (a click on its way) does nothing
        await wait_for(pilot, lambda: refusals, what="the word on Confirm")
        assert len(client.sent) == 1 and refusals[0].startswith("Nothing to confirm now")


async def test_throw_is_a_button():
    client = knock_at(
        lambda game: (
            game.view(0)["phase"] == "play"
            and game.view(0)["turn"] == 0
            and game.view(0)["stage"] == "roll"
        )
    )
    client.clock_ms = (
        max(client.game.view(0).get("roll_from") or 0, client.clock_ms) + 10
    )  # the knock window past
    assert {"type": "roll"} in client.game.legal_actions(0, client.clock_ms)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "KnockScreen")
        await click_button(pilot, screen, "Throw")
        await wait_for(pilot, lambda: client.sent, what="the throw sent")
        assert accepted(client) == [{"type": "roll"}] and not refusals


async def test_a_card_clicked_with_nothing_to_knock_on_says_the_engines_words():
    def waiting(game) -> bool:
        view = game.view(0)
        return view["phase"] == "play" and view["turn"] != 0 and not legal_for_me(game)

    client = knock_at(waiting)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "KnockScreen")
        number = next(card["number"] for card in screen.view()["players"][0]["open"])
        await pilot.click("#hand", offset=hand_offset(number))
        await wait_for(pilot, lambda: refusals, what="a word on the card")
        assert not client.sent and refusals[0] and "seat" not in refusals[0]
        assert screen.query_one("#buttons").text.plain.strip() == "", (
            "no buttons while nothing can be done"
        )


async def test_the_jokers_second_card_by_click():
    from kismet_tui.messages import host_message
    from tests.uiutil import ScriptedSeat, joker_game

    game, seed = joker_game()
    client = ScriptedSeat(game, {"ruleset": "knock", "seats": ["Ana", "Bo"], "seed": seed, "t0": 0})
    app = KismetApp(client)
    async with app.run_test(size=(80, 24)) as pilot:
        app.route()
        screen = await open_game(pilot, app, "KnockScreen")
        game.apply(0, {"type": "roll"}, 30)
        app.post_message(
            host_message(
                {"type": "event", "seq": 5, "t": 30, "seat": 0, "action": {"type": "roll"}}
            )
        )
        await wait_for(
            pilot, lambda: screen.check_action("card", (8,)), what="the joker throw on screen"
        )
        await pilot.click("#hand", offset=hand_offset(8))
        await wait_for(pilot, lambda: screen.joker_first == 8, what="the target picked by a click")
        assert client.sent == []
        await pilot.click("#hand", offset=hand_offset(5))
        await wait_for(pilot, lambda: client.sent, what="the lay")
        assert client.sent == [{"type": "lay", "card": 8, "extra": 5}]


# ---- the end box ----------------------------------------------------------------------------
async def test_the_end_boxs_keys_are_buttons():
    from kismet_tui.screens.end import end_keys

    client = RefereeClient.at("dice", TWO)  # the whole game: the end box is up
    app, refusals = running(client)
    asked: list[str] = []

    async def rematch() -> None:
        asked.append("rematch")

    app.rematch = rematch  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        box = await open_game(pilot, app, "EndScreen")
        line = end_keys(True, True).plain
        await pilot.click("#end-keys", offset=(line.index("play again"), 0))
        await wait_for(pilot, lambda: asked, what="another game asked for by a click")
        await pilot.click("#end-keys", offset=(line.index("see the board"), 0))
        await wait_for(pilot, lambda: app.screen is not box, what="the box closed by a click")
        assert type(app.screen).__name__ == "DiceScreen" and not refusals


async def test_the_pointer_over_a_die_or_a_box_highlights_that_one():
    """Where the terminal reports motion, the thing under the pointer is highlighted (Textual's
    link hover): every cell of the die under it, and no other cell."""
    from textual.geometry import Region

    from kismet_tui.widgets.links import LIT

    client = dice_at(mine_thrown_once)
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_game(pilot, app, "DiceScreen")
        dice, card = screen.query_one("#dice"), screen.query_one("#scorecard")
        await pilot.hover("#dice", offset=die_offset(2))
        await wait_for(pilot, lambda: dice.highlight_link_id, what="the die highlighted")
        lit = dice.link_style_hover.bgcolor
        rows = [
            "".join(
                ("#" if segment.style and segment.style.bgcolor == lit else ".") * len(segment.text)
                for segment in strip
            )
            for strip in dice.render_lines(Region(0, 0, dice.size.width, dice.size.height))
        ]
        x = die_offset(2)[0] - 3
        assert all(row[x : x + 7] == "#" * 7 and row.count("#") == 7 for row in rows), rows
        x, y = where(screen.drawn["scorecard"], SHORT["sixes"])
        await pilot.hover("#scorecard", offset=(x + 1, y))
        action = "screen.click(\"choose('sixes')\")"
        await wait_for(pilot, lambda: card.hovered == action, what="the box highlighted")
        row = "".join(
            ("#" if segment.style and segment.style.underline == LIT.underline else ".")
            * len(segment.text)
            for segment in card.render_lines(Region(0, y, card.size.width, 1))[0]
        )
        width = len(screen.drawn["scorecard"].plain.split("\n")[y])
        assert row[:width] == "#" * width and "#" not in row[width:], row  # the whole row, no other


async def test_a_double_tap_selects_no_text_on_the_board_or_in_the_end_box():
    """Two quick taps (a phone's, or a fast double click) on a box or the end box select
    nothing: no text is lit as a selection over the game (seen in the web door on a phone)."""
    client = RefereeClient.at("dice", TWO)  # the whole game: the end box is up
    app, refusals = running(client)
    async with app.run_test(size=(80, 24)) as pilot:
        box = await open_game(pilot, app, "EndScreen")
        await pilot.click("#ranking", offset=(6, 2), times=2)
        await pilot.pause()
        assert not box.selections, "the end box's words were selected"
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "DiceScreen", what="the board")
        await pilot.click(offset=(10, 5), times=2)
        await pilot.pause()
        assert not app.screen.selections, "the board's words were selected"
