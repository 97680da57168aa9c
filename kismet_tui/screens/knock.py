"""The knock game's screen: the other players' open cards, the dice, the log, your own cards.

Your cards keep their places (2 on the left, 12 on the right) and their keys: 2..9, 0 for 10,
- for 11, = for 12. What a card's key does depends on the moment: before the first throw it
picks the card to lay in advance; on your turn it lays the card; on another player's throw it
knocks with it. r throws, p passes, k knocks letting the game choose the card. By mouse: a
click on a card does what its key does; Throw, Pass, Knock, Confirm and Undo are buttons
(each a key's action, by GameScreen.action_click).
"""

from __future__ import annotations

from functools import partial

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ..messages import send
from ..rules.base import Plain
from ..rules.knock import PRELAY_CHIP_LIMIT, prelay_problem
from ..rules.knock_types import Note, PlayerAction, View
from ..widgets.art import (
    BIG_DIE_HEIGHT,
    BIG_DIE_WIDTH,
    big_dice,
    die_lines,
    seat_colour,
    side_by_side,
    stack,
)
from ..widgets.glyphs import glyph
from ..widgets.lines import Lines
from ..widgets.links import LinkText, linked
from ..widgets.names import fit, possessive
from .game import GameScreen, MoveLog
from .offers import GAME_ACTIONS, Seen, offered

NUMBERS = list(range(2, 13))
KEY_OF = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "0", 11: "-", 12: "="}
BINDING_KEY = {"-": "minus", "=": "equals_sign"}
DICE_WIDTH = 25  # the dice and the caption under them (#dice; the caption keeps a space)


def mini_card(
    number: int, chip: int | None, present: bool, mark: str = "", style: str = "white"
) -> list[Text]:
    """A card three lines tall and six wide: its key in the top edge, number, chip below."""
    if not present:
        dim = Style(color="bright_black")
        return [Text("┌╌╌╌╌┐", dim), Text(f"╎{number:^4}╎", dim), Text("└╌╌╌╌┘", dim)]
    edge = Style(color=style, bold=style != "white")
    top = Text("┌", edge)
    top.append(KEY_OF[number], Style(color="black", bgcolor="bright_yellow", bold=True))
    top.append("───┐", edge)
    middle = Text("│", edge)
    middle.append(f"{number:^4}", Style(color="bright_white", bold=True))
    middle.append("│", edge)
    label = mark or (f"({chip})" if chip is not None else "")
    bottom = Text("└", edge)
    bottom.append(
        f"{label:─^4}", Style(color="yellow") if not mark else Style(color=style, bold=True)
    )
    bottom.append("┘", edge)
    return [top, middle, bottom]


def big_card(lines: list[Text]) -> list[Text]:
    """A mini card widened to nine cells and four lines (a blank line over the number), for
    terminals with room (BIG_HAND_WIDTH)."""
    top, middle, bottom = lines
    rule, side = top.plain[-2], middle.plain[0]
    edge = top[-1:].spans[0].style if top[-1:].spans else top[-1:].style

    def widen(line: Text, fill: str, both: bool) -> Text:
        inner, corner = line[:-1], line[-1:]
        if both:  # centred again: half the new room on each side
            return (
                inner[:1]
                + Text(fill * 2, edge if fill != " " else "")
                + inner[1:]
                + Text(fill * 1, edge if fill != " " else "")
                + corner
            )
        return inner + Text(fill * 3, edge) + corner

    blank = Text(side, edge) + Text(" " * 7) + Text(side, edge)
    return [widen(top, rule, False), blank, widen(middle, " ", True), widen(bottom, rule, True)]


BIG_HAND_WIDTH = 112


def render_hand(view: View, me: int, chosen: list[int], big: bool = False) -> Text:
    """Your eleven cards in their places; a click on one does what its key does."""
    player = view["players"][me]
    open_cards = {card["number"]: card["chip"] for card in player["open"]}
    blocks = []
    for number in NUMBERS:
        if number in chosen:
            card = mini_card(
                number, open_cards.get(number), True, f"#{chosen.index(number) + 1}", "bright_green"
            )
        else:
            card = mini_card(number, open_cards.get(number), number in open_cards)
        blocks.append(linked(big_card(card) if big else card, f"click('card({number})')"))
    return stack(side_by_side(blocks, gap=1))


def render_others(
    view: View, names: list[str], me: int | None, name_width: int = 10, knocks_open: bool = True
) -> Text:
    """Every player's row (yours too, marked "you"): open cards, laid count, minus points,
    and, while the last throw may still be knocked on (`knocks_open`), who knocked on it."""
    text = Text(no_wrap=True, overflow="crop")
    roll = view["roll"]
    knocked = set(roll["knocked"]) if knocks_open and roll is not None else set()
    for player in view["players"]:
        seat = player["seat"]
        turn = view.get("turn") == seat and view.get("phase") == "play"
        text.append(glyph("▶") if turn else " ", Style(color="bright_yellow", bold=True))
        text.append(
            fit(names[seat], name_width, pad=True), Style(color=seat_colour(seat), bold=True)
        )
        numbers = {card["number"] for card in player["open"]}
        for number in NUMBERS:
            text.append(
                f"{number:>3}" if number in numbers else f"  {glyph('·')}",
                Style(bold=True) if number in numbers else Style(color="bright_black"),
            )
        text.append(f"  laid {player['laid_count']:>2}", Style(color="bright_black"))
        text.append(f"  -{player['minus_points']}", Style(color="bright_red"))
        if seat == me:
            text.append(" (you)", Style(color="bright_black"))
        if seat in knocked:
            text.append(" knocked", Style(color="bright_magenta"))
        if player.get("away"):
            text.append(" away", Style(color="bright_black"))
        text.append("\n")
    return text


class KnockScreen(GameScreen[View, PlayerAction, Note]):
    RULESET = "knock"
    BINDINGS = [
        Binding("r", "roll", "Throw"),
        *[
            Binding(
                BINDING_KEY.get(KEY_OF[n], KEY_OF[n]),
                f"card({n})",
                "Card",
                key_display="2-9 0 - =",
                show=n == 2,
            )
            for n in NUMBERS
        ],
        Binding("p", "pass", "Pass"),
        Binding("k", "knock", "Knock"),
        Binding("enter", "confirm", "Confirm"),
        Binding("backspace", "undo", "Undo"),
        GameScreen.HAND,
    ] + GameScreen.COMMON_BINDINGS
    TURN_FIELD = "turn"
    DEFAULT_CSS = """
    KnockScreen #others { height: auto; max-height: 9; }
    KnockScreen #middle { height: 1fr; min-height: 6; }
    KnockScreen #dice { width: 25; height: 6; }
    KnockScreen #say { height: 2; }
    KnockScreen #buttons { height: 1; }
    KnockScreen #hand { height: 3; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[int] = []  # pre-lay picks, in laying order
        self.joker_first: int | None = None  # first card of a joker throw, waiting for the second
        self.knocks_shown = True  # whether #others shows who knocked on the last throw

    def compose_body(self) -> ComposeResult:
        with Vertical():
            yield Static(id="others")
            with Horizontal(id="middle"):
                yield Static(id="dice")
                yield MoveLog(
                    id="movelog", classes="movelog", wrap=True, markup=False, min_width=16
                )
            yield Static(id="say")
            yield Lines(id="buttons")
            yield LinkText(id="hand")

    def on_resize(self) -> None:
        if self.game is not None:
            self.redraw()  # the hand and the names use the room they have

    def on_mount(self) -> None:
        # (Textual runs GameScreen.on_mount as well: handlers are called up the class tree.)
        self.set_interval(0.2, self.tick)

    def tick(self) -> None:
        view = self.view()
        if self.knocks_open(view) != self.knocks_shown:
            self.redraw()  # the knock window has closed: the knocked marks go
        self.query_one("#say", Static).update(self.say(view), layout=False)
        self.refresh_keys()  # a throw becomes legal with time alone, when the knock window closes

    def knocks_open(self, view: View) -> bool:
        """Whether the last throw may still be knocked on: while it is decided, and through
        the knock window after it [D15]; not into the next throw."""
        if view.get("stage") == "decide":
            return True
        return view.get("stage") == "roll" and (view.get("roll_from") or 0) > self.now_ms()

    def on_note(self, note: Note) -> None:
        if note.get("type") in ("rolled", "laid", "passed", "round_over"):
            self.joker_first = None
        if note.get("type") == "round_over":
            self.chosen = []

    # ---- drawing -----------------------------------------------------------------------------
    def redraw(self) -> None:
        view = self.view()
        names = self.names
        if view.get("phase") not in ("prelay_commit", "prelay_reveal"):
            self.chosen = []
        wide = self.app.size.width >= 110
        self.knocks_shown = self.knocks_open(view)
        self.query_one("#others", Static).update(
            render_others(view, names, self.seat, 22 if wide else 10, self.knocks_shown)
        )
        roll = view["roll"]
        dice = roll["dice"] if roll is not None else []
        big = big_dice(self.app.size.width, self.app.size.height)
        width = 3 * BIG_DIE_WIDTH + 3 if big else DICE_WIDTH
        box = self.query_one("#dice", Static)
        if box.styles.width is None or box.styles.width.value != width:
            box.styles.width, box.styles.height = width, (BIG_DIE_HEIGHT if big else 5) + 1
        blocks = [
            die_lines(dice[i] if i < len(dice) else None, coloured=False, big=big) for i in range(3)
        ]
        caption = Text()
        if roll is not None:
            roller: int = roll["roller"]
            joker = " JOKER" if roll["joker"] else ""
            caption.append(
                possessive(names[roller], "throw", width - 1 - len(joker)),
                Style(color=seat_colour(roller), bold=True),
            )
            caption.append(joker, Style(color="bright_magenta", bold=True))
        box.update(stack(side_by_side(blocks) + [caption]))
        if self.seat is not None:
            big = self.app.size.width >= BIG_HAND_WIDTH
            hand = self.query_one("#hand", Static)
            hand.styles.height = 4 if big else 3
            hand.update(render_hand(view, self.seat, self.chosen, big))
        else:
            self.query_one("#hand", Static).update(
                Text("You are watching.", Style(color="bright_black"))
            )
        self.query_one("#say", Static).update(self.say(view))
        self.draw_buttons()

    def draw_buttons(self) -> None:
        """The buttons of the keys offered now (GameScreen.buttons), for a player."""
        if self.game is None or not self.is_mounted:
            return
        row = (
            self.buttons(
                [
                    ("Throw", "roll"),
                    ("Pass", "pass"),
                    ("Knock", "knock"),
                    ("Confirm", "confirm"),
                    ("Undo", "undo"),
                ]
            )
            if self.seat is not None
            else Text()
        )
        buttons = self.query_one("#buttons", Lines)
        if row != buttons.text:
            buttons.show(row)

    def say(self, view: View) -> Text:
        """The one or two lines that tell the player what they can do now."""
        text = Text()
        me = self.seat
        phase = view.get("phase")
        hint = Style(color="bright_black")
        if phase == "over":
            text.append("The game is over.", Style(bold=True))
            return text
        text.append(f"Round {view.get('round')} of {view.get('rounds')}  ", Style(bold=True))
        if phase == "prelay_commit":
            if me is None or view["players"][me]["committed"]:
                text.append("Waiting for everyone to choose their cards to lay in advance.")
            else:
                chips = self.chosen_chips(view)
                text.append(
                    f"Lay in advance: {', '.join(map(str, self.chosen)) or 'nothing'} "
                    f"(chips {chips}/{PRELAY_CHIP_LIMIT})",
                    Style(bold=True, color="bright_green"),
                )
                left = (view.get("deadline") or 0) - self.now_ms()
                if view.get("deadline") is not None and left > 0:
                    text.append(f" · {left // 1000} s left", Style(color="bright_yellow"))
                text.append(
                    "\ncard keys pick (the last one ends on top), enter confirms, backspace undoes",
                    hint,
                )
            return text
        if phase == "prelay_reveal":
            text.append("Showing everyone's cards laid in advance...")
            return text
        turn = view.get("turn")
        roll = view["roll"]
        if me is not None and turn == me:
            if view.get("stage") == "roll":
                wait = (view.get("roll_from") or 0) - self.now_ms()
                if wait > 0:
                    text.append(
                        f"Your throw in {wait / 1000:.1f} s (others may still knock)",
                        Style(bold=True),
                    )
                else:
                    text.append("Your throw: press r", Style(bold=True, color="bright_green"))
            elif self.joker_first is not None:
                text.append(
                    f"Joker! {self.joker_first} goes down. Choose one more card, or enter for none.",
                    Style(bold=True, color="bright_magenta"),
                )
            else:
                text.append(
                    "Lay a matching card (its key) or pass (p)",
                    Style(bold=True, color="bright_green"),
                )
        elif turn is not None:
            text.append(f"{self.names[turn]} ", Style(bold=True, color=seat_colour(turn)))
            text.append("is throwing" if view.get("stage") == "roll" else "decides")
        window = (view.get("roll_from") or 0) - self.now_ms() if view.get("stage") == "roll" else 0
        roller = roll["roller"] if roll is not None else None
        whose = possessive(self.names[roller], "throw", 30) if roller is not None else "this throw"
        if self.can_knock():
            if window > 0:  # the knock window [D15]: the next throw cannot come before it ends
                # (on the first line: the second is as long as 80 columns allow)
                text.append(
                    f" {glyph('·')} next throw in {window / 1000:.1f} s",
                    Style(color="bright_yellow"),
                )
            text.append(f"\nKnock on {whose}: k, or the key of the card you would lay", hint)
        elif roll is not None and me is not None and me in roll["knocked"] and turn != me:
            text.append(f"\nYou knocked on {whose}.", hint)
        return text

    def chosen_chips(self, view: View) -> int:
        chips = view.get("chips") or []
        return sum(chips[n - 2] for n in self.chosen if 0 <= n - 2 < len(chips))

    # ---- what may be pressed -------------------------------------------------------------
    # What the engine's legal_actions lists for our seat is the only source of these
    # (GameScreen.legal_now): the screen derives no rule of its own.
    def can_knock(self) -> bool:
        """Somebody else threw and we have not knocked on it: a knock is legal."""
        return "knock" in self.legal_kinds()

    def choosing_prelay(self) -> bool:
        """Before the first throw, our pre-lay not committed yet."""
        return "prelay" in self.legal_kinds()

    def deciding(self) -> bool:
        """Our throw is out: we lay or pass (the engine lists a pass only then)."""
        return {"type": "pass"} in self.legal_now()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Which keys the footer offers: only those that act now. (The footer is rebuilt
        only when this set changes, see GameScreen.refresh_keys.)"""
        if self.game is None:
            return True
        if action in GAME_ACTIONS[self.RULESET]:
            return offered(self.RULESET, action, parameters, self.seen())
        return super().check_action(action, parameters)

    def seen(self) -> Seen:
        """What the keys depend on (screens/offers.py)."""
        return Seen(
            self.seat,
            self.view(),
            self.legal_now(),
            chosen=tuple(self.chosen),
            joker_first=self.joker_first,
        )

    # ---- keys and clicks ---------------------------------------------------------------------
    def answer_not_offered(self, name: str, params: tuple[object, ...]) -> bool:
        """Your throw is not offered while the others may still knock [D15], but an r (or a
        click on Throw) then still hears why: sent, the host answers in words ("Wait: others
        may still knock")."""
        view = self.view()
        if (
            name == "roll"
            and self.seat is not None
            and view.get("phase") == "play"
            and view.get("turn") == self.seat
            and view.get("stage") == "roll"
        ):
            self.action_roll()
            return True
        return False

    def engine_action(self, name: str, params: tuple[object, ...]) -> Plain | None:
        if name in ("roll", "pass", "knock"):
            return {"type": name}
        if name == "card":  # on your throw a lay, else a knock naming the card
            view = self.view()
            laying = view.get("turn") == self.seat and view.get("stage") != "roll"
            return {"type": "lay" if laying else "knock", "card": params[0]}
        return None

    def why_not(self, name: str, params: tuple[object, ...]) -> str:
        if self.seat is not None and name == "confirm":
            return "Nothing to confirm now: Confirm lays a joker throw's one card, or your cards laid in advance."
        if self.seat is not None and name == "undo":
            return "Nothing to undo: no card is chosen to lay in advance."
        return super().why_not(name, params)

    def action_roll(self) -> None:
        self.act({"type": "roll"})

    def action_pass(self) -> None:
        self.joker_first = None
        self.act({"type": "pass"})

    def action_knock(self) -> None:
        self.act({"type": "knock"})

    def action_card(self, number: int) -> None:
        view = self.view()
        me = self.seat
        open_numbers = (
            {card["number"] for card in view["players"][me]["open"]} if me is not None else set()
        )
        if self.choosing_prelay():
            self.pick_prelay(view, number)
        elif self.deciding():
            roll = view["roll"]
            if number not in open_numbers:
                self.refuse(f"Your {number} is not among your open cards.")
            elif self.joker_first is not None:
                first = self.joker_first
                if (
                    number == first
                ):  # the same card again: the pick stands, the host would refuse it
                    self.refuse(
                        f"The {first} goes down already: choose one more card, or enter for none."
                    )
                    return
                self.joker_first = None
                self.act({"type": "lay", "card": first, "extra": number})
            elif (
                roll is not None
                and roll["joker"]
                and number in roll["targets"]
                and len(open_numbers) > 1
            ):
                self.joker_first = number  # a joker throw: ask for the second card
                self.redraw()
            else:
                self.act({"type": "lay", "card": number})
        elif self.can_knock():
            self.act({"type": "knock", "card": number})
        elif view["roll"] is not None and view["roll"]["roller"] == me:
            self.refuse("Wait for the next throw: this one was yours.")
        elif me is not None and view["roll"] is not None and me in view["roll"]["knocked"]:
            self.refuse("You have knocked on this throw already.")
        else:
            self.refuse("Nothing to lay or knock on yet: wait for a throw.")

    def pick_prelay(self, view: View, number: int) -> None:
        if number in self.chosen:
            self.chosen.remove(number)
        else:
            chips = view.get("chips") or []
            if prelay_problem(self.chosen + [number], chips) is not None:  # the engine's rule
                self.refuse(
                    f"The {number} carries {chips[number - 2]} chips: that would be more "
                    f"than {PRELAY_CHIP_LIMIT} laid in advance."
                )
                return
            self.chosen.append(number)
        self.redraw()
        self.refresh_keys()

    def action_undo(self) -> None:
        if self.chosen:
            self.chosen.pop()
            self.redraw()
            self.refresh_keys()

    async def commit_prelay(self, cards: list[int]) -> None:
        """Commit to the chosen pre-lay (the client keeps the secret and reveals it later)."""
        await send(self, partial(self.client.prelay, cards))

    def action_confirm(self) -> None:
        if self.choosing_prelay():
            self.run_worker(self.commit_prelay(list(self.chosen)), group="act")
        elif self.deciding() and self.joker_first is not None:
            first, self.joker_first = self.joker_first, None
            self.act({"type": "lay", "card": first})
        else:
            self.refuse("Nothing to confirm now: enter lays a joker throw's one card.")
