"""What the three game screens share: the status line, the move log, chat, acting, the end.

A game screen draws only from the source's replica (`app.client.game.view(seat)`, the
client being a kismet_tui.source.GameSource), redrawn after every host message. Keys that
cannot do anything right now are hidden from the footer (check_action, from the engine's
legal_actions: `legal_now`), so the footer always says what may be pressed. Chat lines come in through the app's `chat_said`, watched.

The mouse: what a key does, a click on its thing does (a die, a box, a card, a button), by
one path (`action_click`): the text drawn for the thing carries a `@click` that names the
key's action; the click runs it when check_action offers it (as the footer would), and when
not, says why as the key would (`answer_not_offered`) or in the engine's own words (`why_not`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from functools import partial
from typing import Any, Generic, TypeVar, cast

from rich.text import Text
from textual import events, on
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import RichLog

from protocol.actions import build_action
from protocol.leavers import Leavers

from ..app_ref import OnKismetApp
from ..messages import (
    EventApplied,
    GameArrived,
    HostMessage,
    LeaveAsked,
    RefusalToShow,
    RematchAsked,
    TableChanged,
    send,
    send_ok,
)
from ..rematch import rematch_line
from ..rules import Game
from ..rules.base import AnyGame, Plain
from ..rules.game_types import HostAction
from ..rules.refusal import Refusal, words_of
from ..source import GameSource
from ..widgets.chat import MUTE, ChatInput, mute_offered
from ..widgets.footer import KeyFooter
from ..widgets.glyphs import glyph
from ..widgets.links import button_row
from ..widgets.status import StatusBar
from ..widgets.toosmall import TooSmall
from ..words.clocks import clock_words, idle_words
from ..words.common import name_of
from ..words.log import Line, event_lines, history_lines


def seat_names(client: GameSource, seats: int) -> list[str]:
    """A display name per seat (plain text): the game header's names, which stay fixed for
    the game, else the table's seats, else 'Seat n'."""
    names = []
    header, table = client.header, client.table
    listed: object = header.get("seats") if header is not None else None
    if not isinstance(listed, list):
        listed = table.get("seats") if table is not None else None
    for seat in range(seats):
        entry = listed[seat] if isinstance(listed, list) and seat < len(listed) else None
        name = (
            entry.get("name")
            if isinstance(entry, dict)
            else entry
            if isinstance(entry, str)
            else None
        )
        names.append(str(name) if name else f"Seat {seat + 1}")
    return names


class MoveLog(RichLog):
    """The move log. It never takes the focus: the arrow keys belong to the game.

    A RichLog wraps each line once, at the width it has when the line is written; this one
    keeps what it was told and wraps it all again when its width changes, so a window that
    shrinks or grows shows whole sentences at the new width, not cut or narrow ones."""

    can_focus = False
    # What it keeps, the oldest dropped (nobody scrolls that far), so that neither a long
    # evening nor a flood of chat makes it grow without end: the lines it was told, to wrap
    # again, and the lines on show (a long line wraps into several).
    KEEP = 400
    MAX_LINES = 1000

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_lines=self.MAX_LINES, **kwargs)
        self.said: list[Text] = []
        self.wrapped_at = 0  # the width the lines on show were wrapped at

    def write(
        self,
        content: object,
        width: int | None = None,
        expand: bool = False,
        shrink: bool = True,
        scroll_end: bool | None = None,
        animate: bool = False,
    ) -> MoveLog:
        if isinstance(content, Text) and self._size_known:  # (a deferred write comes again)
            self.said.append(content)
            del self.said[: -self.KEEP]
        super().write(content, width, expand, shrink, scroll_end, animate)
        if self.is_attached and self.screen is not self.app.screen:
            # Under a box (the end of the game): Textual draws a screen seen behind another
            # again only when the one on top is drawn, so this line, and the scroll to it,
            # would not show until the box changes.
            self.call_after_refresh(self.app.screen.refresh)
        return self

    def on_resize(self, event: events.Resize) -> None:
        # After the layout settles (RichLog's own handler writes what waited for a size).
        self.call_after_refresh(self.wrap_again)

    def wrap_again(self) -> None:
        width = self.scrollable_content_region.width
        if not self._size_known or width <= 0 or width == self.wrapped_at:
            return
        self.wrapped_at = width
        said = self.said
        self.clear()
        for text in said:
            super().write(text, width=width, scroll_end=False)
        self.scroll_end(animate=False, immediate=False, x_axis=False)  # where the game is


# The game's declared view, player actions and notes (kismet_tui/rules/<game>_types.py): a
# game screen is a GameScreen[View, PlayerAction, Note], so a misspelt field fails mypy.
ViewT = TypeVar("ViewT")
ActionT = TypeVar("ActionT", bound=Mapping[str, object])
NoteT = TypeVar("NoteT", bound=Mapping[str, object])


class GameScreen(OnKismetApp, Screen[None], Generic[ViewT, ActionT, NoteT]):
    """Subclasses set RULESET, compose their body in compose_body() and draw in redraw()."""

    # The board is played by clicks and taps: a double one must not select its words.
    ALLOW_SELECT = False

    RULESET = ""
    # Nothing takes the focus by itself: the game's keys (arrows included) belong to the
    # screen, not to the move log.
    AUTO_FOCUS = None
    # Subclasses list their game keys first, then these, so the footer leads with the game.
    # At the end (after escape on the ranking box) the game's own keys are off, so r and
    # enter fall through to these (Textual tries a key's bindings in order).
    COMMON_BINDINGS: list[BindingType] = [
        Binding("r", "rematch", "Play again"),
        Binding("enter", "results", "Results"),
        ChatInput.TALK,
        # The game's keys fill the footer: m (the owner's, while somebody watches) still
        # mutes the watchers, unshown, as the help and the lobby's footer say, so the help
        # key is never cut off at 80 columns.
        *[dataclasses.replace(binding, show=False) for binding in MUTE],
        Binding("ctrl+l", "leave", "Leave"),
    ]
    # The owner hands the seat on turn (another player's, who is idle) to the host [D31]:
    # the dice and knock screens list it among their keys (the race has no turns to wait on).
    HAND = Binding("b", "hand_to_bot", "To a bot")
    # The view's field that says whose turn it is ("" for a game without turns).
    TURN_FIELD = ""
    # Keys that came alive join the footer this much later (see refresh_keys). The race
    # screen sets it: the rebuild must not fall in the moment the dice land, when the
    # grabs need every millisecond (benchmarks/ui_grab_latency.py).
    NEW_KEYS_LATER_S = 0.0
    DEFAULT_CSS = """
    GameScreen RichLog.movelog {
        height: 1fr;
        min-height: 3;
        background: $surface;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.game: Game[ActionT, NoteT, ViewT] | None = None
        self.ended_shown = False
        self.keys_signature: tuple[bool | None, ...] | None = None
        self.keys_timer: Timer | None = None
        self.version = 0  # host messages seen: the view cache's key
        self.view_key: tuple[int, int] | None = None
        self.view_cache: ViewT | None = None
        self.legal_key: tuple[int, int, int] | None = None
        self.legal_cache: list[ActionT | HostAction] = []
        self.logged_seq = 0  # the events whose notes the move log shows (by seq)
        self.rematch_said = ""  # the last "who wants another game" line logged
        self.here_said = -1  # the host message after which we last said we are here

    # ---- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusBar(self.RULESET)
        yield from self.compose_body()
        yield ChatInput()
        yield TooSmall()
        yield KeyFooter()

    def compose_body(self) -> ComposeResult:
        raise NotImplementedError

    def movelog(self) -> MoveLog:
        return self.query_one("#movelog", MoveLog)

    # ---- state ---------------------------------------------------------------------------
    @property
    def replica(self) -> Game[ActionT, NoteT, ViewT]:
        """The game this screen draws (set at mount; a rebuilt replica replaces it)."""
        if self.game is None:
            raise RuntimeError(
                f"the {self.RULESET} screen has no game yet: it gets one when mounted"
            )
        return self.game

    @property
    def seat(self) -> int | None:
        seat = self.client.seat
        return seat if seat is not None and seat >= 0 else None

    @property
    def names(self) -> list[str]:
        return seat_names(self.client, self.game.seats if self.game else 0)

    def now_ms(self) -> int:
        """The host's clock as the client estimates it (deadlines in views are host times)."""
        return self.client.host_time_ms()

    def view(self) -> ViewT:
        """The replica's view for our seat, computed once per host message (the keys, the
        footer and the drawing all ask for it)."""
        key = (self.version, id(self.game))
        if self.view_key != key or self.view_cache is None:
            self.view_cache = self.replica.view(self.seat)
            self.view_key = key
        return self.view_cache

    def legal_now(self) -> list[ActionT | HostAction]:
        """What the engine accepts from our seat now (its legal_actions, the one source of
        legality): the game keys the footer offers are derived from it (check_action)."""
        game, seat = self.game, self.seat
        if game is None or seat is None:
            return []
        # Never before the last event: the engine accepts nothing stamped earlier, and our
        # estimate of the host's clock may lag a moment behind it.
        t = max(self.now_ms(), game.now)
        key = (self.version, id(game), t)
        if self.legal_key != key:
            self.legal_cache = game.legal_actions(seat, t)
            self.legal_key = key
        return self.legal_cache

    def legal_kinds(self) -> set[str]:
        """The types of the actions legal now ("roll", "grab", "knock", ...)."""
        return {str(action["type"]) for action in self.legal_now()}

    def on_mount(self) -> None:
        self.game = self.client.game
        names = self.names
        you = f"you are {names[self.seat]}" if self.seat is not None else "watching"
        self.query_one(StatusBar).set_where(f"{self.RULESET} · {you}")
        self.log_line(f"A game of {self.RULESET} for {len(names)}: {', '.join(names)}.", "dim")
        self.catch_up()
        for line in self.kismet.chat_lines:  # said before this screen opened
            self.write_chat(line)
        self.watch(self.kismet, "chat_said", self.write_chat, init=False)
        self.redraw()
        self.refresh_keys()
        self.check_end()
        # The clocks count down in the status line: one timer, once a second; the line is
        # drawn again only when its words change.
        self.set_interval(1.0, self.show_clocks)
        self.show_clocks()

    # ---- what the host says (the app hands every message on; the kind's handler runs first)
    def following(self) -> bool:
        """Whether host messages are about this screen's game: not when the app is about to
        put up a fresh screen for a new game."""
        return self.client.game is self.game

    @on(TableChanged)
    def table_changed(self, message: TableChanged) -> None:
        if self.following() and self.game is not None and self.game.finished:
            self.log_rematch()

    @on(EventApplied)
    def event_applied(self, message: EventApplied) -> None:
        if self.following():
            self.log_event(message)

    @on(GameArrived)
    def game_arrived(self, message: GameArrived) -> None:
        if self.following():
            self.catch_up()  # a resync or a rejoin: log what happened while this screen was not told

    @on(HostMessage)
    def host_said(self, message: HostMessage) -> None:
        """After any host message: draw the replica again."""
        if not self.following():
            return
        self.version += 1
        if self.is_mounted:
            self.redraw()
            self.refresh_keys()
            self.show_clocks()
        self.check_end()

    def refresh_keys(self) -> None:
        """Redraw the footer only when what may be pressed has changed: rebuilding the footer
        costs tens of milliseconds, too much to do on every event of a race round. Keys that
        only came alive may join it NEW_KEYS_LATER_S later (they act meanwhile all the same);
        a key that no longer acts leaves it at once."""
        names = sorted(
            {
                binding.action.split("(")[0]
                for bindings in self._bindings.key_to_bindings.values()
                for binding in bindings
            }
        )
        signature = tuple(self.check_action(name, ()) for name in names)
        if signature == self.keys_signature:
            return
        gained_only = self.keys_signature is not None and all(
            bool(new) or not old for old, new in zip(self.keys_signature, signature)
        )
        self.keys_signature = signature
        self.draw_buttons()  # (at once: a few cells, not the footer's rebuild)
        if gained_only and self.NEW_KEYS_LATER_S:
            if self.keys_timer is None:
                self.keys_timer = self.set_timer(self.NEW_KEYS_LATER_S, self.late_keys)
            return
        if self.keys_timer is not None:
            self.keys_timer.stop()
            self.keys_timer = None
        self.refresh_bindings()

    def late_keys(self) -> None:
        self.keys_timer = None
        self.refresh_bindings()

    def log_event(self, event: EventApplied) -> None:
        """One event: its notes as sentences, unless the log shows them already (the history
        written at mount may have covered it)."""
        if event.notes is None:
            return  # the replica did not apply it (a resync is coming): nothing to say yet
        if event.seq is not None:
            if event.seq <= self.logged_seq:
                return
            self.logged_seq = event.seq
        for note in event.notes:
            self.on_note(cast(NoteT, note))  # (the replica's notes, of this screen's game)
        self.log_lines(event_lines(self.RULESET, event.notes, self.names))

    def catch_up(self) -> None:
        """Write the sentences of the events past `logged_seq`, from the notes the replica
        made for them (the source keeps them: nothing is played again here)."""
        notes = self.client.applied_notes()
        if len(notes) <= self.logged_seq:
            return
        self.log_lines(
            history_lines(self.RULESET, notes, self.names, first_seq=self.logged_seq + 1)
        )
        self.logged_seq = len(notes)

    def log_lines(self, lines: list[Line]) -> None:
        """Lines about our own seat stand out."""
        for words, seat in lines:
            self.log_line(words, "bold" if seat is not None and seat == self.seat else "")

    def on_note(self, note: NoteT) -> None:
        """Hook: a game screen reacts to one note (e.g. resets holds on a new turn)."""

    def check_end(self) -> None:
        if self.game is not None and self.game.finished and not self.ended_shown:
            self.ended_shown = True
            self.show_results()

    def show_results(self) -> None:
        from .end import EndScreen

        leavers = Leavers(self.client.header or {})
        for event in self.client.applied_events():
            leavers.see(event)
        self.app.push_screen(
            EndScreen(
                self.RULESET,
                dict(self.replica.result() or {}),
                self.names,
                self.seat,
                leavers.left(finished=True),
            )
        )

    def log_rematch(self) -> None:
        """Tell the board too (the ranking box may be closed) who wants another game."""
        line = rematch_line(self.client.table)
        if line and line != self.rematch_said:
            self.rematch_said = line
            self.log_line(line, "bold bright_yellow")

    def write_chat(self, line: Text | None) -> None:
        if line is not None and self.is_mounted:
            self.movelog().write(Text("» ") + line)

    def log_line(self, words: str, style: str = "") -> None:
        self.movelog().write(Text(words, style=style))

    def log_refusal(self, words: str) -> None:
        """A refusal the app has shown, kept in the move log too. A refusal comes up as a
        message, a moment later: a screen being closed by then has no log to keep it (the
        status line says it all the same). A key pressed again and again is told once."""
        if not self.query("#movelog"):
            return
        said = self.movelog().said
        if said and said[-1].plain == words:
            return  # the same refusal again, nothing between: the log says it once
        self.log_line(words, "italic bright_yellow")

    def redraw(self) -> None:
        raise NotImplementedError

    # ---- clocks and idle seats [D31] -------------------------------------------------------
    def show_clocks(self) -> None:
        """The time left of every limit running, in the status line; for a player the host
        is playing for, how to come back."""
        game = self.game
        if game is None or not self.is_mounted:
            return
        me = self.seat
        if game.finished or not self.client.live:  # (a replay's limits are long past)
            words = ""
        elif me is not None and game.idle[me]:
            words = idle_words(True)
        else:
            view = cast(Mapping[str, Any], self.view())
            words = clock_words(view.get("clocks") or [], self.names, me, self.now_ms(), glyph("·"))
        self.query_one(StatusBar).set_clock(words)

    def on_key(self, event: events.Key) -> None:
        """Any key of a player the host is playing for brings them back. A game key the
        footer hides (no binding of it acts now) may still say why (answer_not_offered)."""
        self.back_if_idle()
        bindings = self._bindings.key_to_bindings.get(event.key, ())
        actions = [parse_action(binding.action)[1:] for binding in bindings]
        if (
            self.game is None
            or not actions
            or any(self.check_action(name, params) for name, params in actions)
        ):
            return  # (a binding acts, or the key is not the screen's)
        name, params = actions[0]
        if self.answer_not_offered(name, params):
            event.stop()

    def back_if_idle(self) -> None:
        """A player the host is playing for is back at a key or a click (the host stamps them
        back; what they pressed does what it does once they are)."""
        game, me = self.game, self.seat
        if (
            game is None
            or me is None
            or not game.idle[me]
            or game.finished
            or not self.client.live
            or self.here_said == self.version
        ):
            return
        self.here_said = self.version  # once until the host answers
        try:
            self.client.here_nowait()
        except Exception as exc:  # not connected: say so
            self.refuse(words_of(exc))

    def hand_target(self) -> int | None:
        """The seat the owner's `b` would hand to a bot: the seat on turn, when it is another
        human's who is here and not yet played for."""
        game, table = self.game, self.client.table
        if (
            not self.TURN_FIELD
            or game is None
            or table is None
            or game.finished
            or not self.client.live
            or table.get("owner") is None
            or table.get("owner") != self.client.client_id
        ):
            return None
        turn = cast(Mapping[str, Any], self.view()).get(self.TURN_FIELD)
        seats = table.get("seats") or []
        if not isinstance(turn, int) or turn == self.seat or not 0 <= turn < len(seats):
            return None
        entry = seats[turn]
        if entry.get("bot") or game.away[turn]:
            return None
        return turn

    async def action_hand_to_bot(self) -> None:
        seat = self.hand_target()
        if seat is not None:
            await send_ok(self, partial(self.client.hand_to_bot, seat))

    # ---- the mouse -------------------------------------------------------------------------
    async def action_click(self, action: str) -> None:
        """A click on a die, a box, a card or a button that stands for the key action
        `action` ("hold(2)"): the one path every click takes. Offered now (check_action, the
        engine's legal_actions, as the footer shows it), it runs as the key's binding would;
        else it does nothing but say why: what its key says when pressed anyway, or the
        engine's own words for the move it stands for."""
        self.back_if_idle()
        _namespace, name, params = parse_action(action)
        if self.check_action(name, params):
            await self.run_action(action)
        elif not self.answer_not_offered(name, params):
            self.refuse(self.why_not(name, params))

    def answer_not_offered(self, name: str, params: tuple[object, ...]) -> bool:
        """Hook: an action not offered now, asked for anyway (its key pressed, its thing
        clicked): a screen that has something to say says it (or sends the move, so that the
        host says it) and returns True; False: nothing to say."""
        return False

    def engine_action(self, name: str, params: tuple[object, ...]) -> Plain | None:
        """Hook: the engine's move a screen action stands for (for the engine's words on
        why it is refused), or None."""
        return None

    def why_not(self, name: str, params: tuple[object, ...]) -> str:
        """Why a click does nothing now: the engine's refusal of the move it stands for,
        tried on a copy of the replica (the host would say the same)."""
        game, me = self.game, self.seat
        if game is None or me is None:
            return "You are watching this game: only its players play."
        if not self.client.live:
            return "This is a replay: nothing can be played."
        move = self.engine_action(name, params)
        if move is not None:
            try:
                # (built as the host builds it: the edge's refusal is the host's too)
                trial: AnyGame = copy.deepcopy(game)
                trial.apply(me, build_action(game.RULESET, move), max(self.now_ms(), game.now))
            except Refusal as refusal:
                return refusal.words
        if game.finished:
            return "The game is over."
        return "That does nothing now."

    def draw_buttons(self) -> None:
        """Hook: draw the screen's buttons again (what may be pressed has changed)."""

    def buttons(self, row: list[tuple[str, str]]) -> Text:
        """A row of buttons (label, key action): a button shows only while check_action
        offers its action (its key is in the footer); one not offered leaves its place
        blank, so that no other button moves under a pointer about to click."""
        return button_row(
            [
                (label, f"click({action!r})")
                if self.check_action(*parse_action(action)[1:])
                else (label, None)
                for label, action in row
            ]
        )

    # ---- acting ------------------------------------------------------------------------------
    def act(self, action: ActionT) -> None:
        """Send one of the game's declared player actions at once, without waiting for the
        answer: in the race game a few milliseconds decide who grabs first. It is checked
        first as the host checks it (protocol/actions.py, derived from the same declaration):
        one the vocabulary refuses is said here in the host's words and never sent. A refusal
        by the rules comes back as an `error` message and is shown in words
        (KismetApp.host_refused)."""
        try:
            build_action(self.RULESET, action)
            self.client.act_nowait(action)
        except Exception as exc:  # not connected, or a replay: say so, lose nothing else
            self.refuse(words_of(exc))

    def refuse(self, words: str) -> None:
        """Tell the player that what they pressed is not allowed (the app shows the words)."""
        self.post_message(RefusalToShow(words))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        live = self.client.live
        over = self.game is not None and self.game.finished
        if action == "rematch":
            return over and live and self.seat is not None
        if action == "results":
            return over
        if action == "leave":
            return live
        if action == "hand_to_bot":
            return self.hand_target() is not None
        if action == "talk":
            return (
                live
                and bool(self.client.table)
                and not any(c.is_open for c in self.query(ChatInput))
            )
        if action in ("mute_watchers", "unmute_watchers"):
            return live and mute_offered(action, self.client.table, self.client.client_id)
        return True

    def action_rematch(self) -> None:
        self.post_message(RematchAsked())

    def action_results(self) -> None:
        self.show_results()

    def action_talk(self) -> None:
        self.query_one(ChatInput).open()

    async def action_mute_watchers(self) -> None:
        await send(self, partial(self.client.mute_watchers, True))

    async def action_unmute_watchers(self) -> None:
        await send(self, partial(self.client.mute_watchers, False))

    def action_leave(self) -> None:
        self.post_message(LeaveAsked())

    def my_turn(self, view: Mapping[str, object]) -> bool:
        return self.seat is not None and bool(view.get("your_turn"))


__all__ = ["GameScreen", "name_of", "seat_names"]
