"""The Kismet Textual app: one client connection, the lobby, and a screen per game.

The app owns the game's source (kismet_tui/source.py: the host connection, or a replay).
One worker (`read_host`) awaits the client's messages and posts each as its typed message
(kismet_tui/messages.py); the app's `@on` handlers then show refusals, route chat, and switch
between the lobby, the game screen and the end-of-game screen, and hand each message on to
the screens. Screens only read the source's replica (`client.game`, `client.seat`,
`client.table`) and the app's state (kismet_tui/app_state.py); what they want of the app
comes up as a message (`RefusalToShow`, `RematchAsked`, `LeaveAsked`).

What every screen shows of the app's own state lives in reactive attributes, which the
status bar and the screens watch instead of asking again and again: `connection`, `notice`
(the words of the moment, cleared by a timer), `build_words` (the optimal dice table's
background build, which tells the app when it moves on) and `chat_said` (each chat line as
it comes; `chat_lines` keeps the last ones for a screen that opens later).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import sys
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.driver import Driver

from protocol import limits
from protocol.host_messages import TableShown

from . import terminal
from .app_ref import OnKismetApp
from .app_state import ConnectionStatus, KismetState, Notice
from .messages import (
    BuildChanged,
    ChatHeard,
    ChatSkipped,
    ConnectionChanged,
    ConnectionReported,
    EventApplied,
    FairnessChecked,
    HostMessage,
    HostNotice,
    HostRefused,
    LeaveAsked,
    RefusalToShow,
    RematchAsked,
    TableChanged,
    host_message,
    send,
    send_ok,
)
from .needs_terminal import NoTerminal, refusal
from .net.inbox import skipped_words
from .rematch import rematch_waiting
from .rules.refusal import words_of
from .solver import background
from .source import GameSource
from .web_typing import TypingSignal
from .widgets.chat import ChatInput
from .widgets.colours import send_colour_or_not

if TYPE_CHECKING:
    from .screens.game import GameScreen

__all__ = ["ConnectionStatus", "KismetApp", "Notice"]
# The keys that still work while the terminal is too small (widgets/toosmall.py says so).
KEYS_BEHIND_TOO_SMALL = {"ctrl+q", "ctrl+c"}


def game_screen_for(ruleset: str) -> GameScreen:
    """A fresh screen for a game of `ruleset` (each loads when its game is first played)."""
    if ruleset == "dice":
        from .screens.dice import DiceScreen

        return DiceScreen()
    if ruleset == "race":
        from .screens.race import RaceScreen

        return RaceScreen()
    if ruleset == "knock":
        from .screens.knock import KnockScreen

        return KnockScreen()
    raise ValueError(f"no screen for the game {ruleset!r}")


class KismetApp(KismetState):
    """`client` is where the game comes from (kismet_tui.source.GameSource): a
    kismet_tui.net.client.Client here, a ReplaySource in the replay viewer.

    `connect` (async callable) is awaited once at start to open the connection. `quick` opens
    the new-table form at once and starts the game as soon as the table exists (local play).
    `invitation`, when set (by `kismet`, whose host is its own), is the lobby's Invite (`o`):
    it asks, lets friends in, and closes again (kismet_tui/invite.py).
    """

    TITLE = "Kismet"
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = "kismet.tcss"
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        client: GameSource,
        *,
        connect: Callable[[], Awaitable[object]] | None = None,
        address: str = "",
        quick: bool = False,
        on_quit: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__(client, address)
        send_colour_or_not(self)  # NO_COLOR or a monochrome terminal: no colour codes at all
        self.connect_fn = connect
        self.quick = quick
        self.on_quit = on_quit
        self.notices_shown: list[str] = []
        self.stop_listening: Callable[[], None] | None = None
        self.rematch_wanted = False  # the owner pressed r at the end: start when all want one
        self.rematch_at: object = None  # ...at this table (a wish that does not follow to another)
        self.warming_up = False  # warm_up started (once, after the first screen)
        self.reached = False  # the connection was made once
        self.unreachable: str | None = None  # the words when it never could be
        self.failed = False  # an error nobody caught ended it
        self.typing_signal = TypingSignal()  # a browser page told when a text field is focused
        if self.console.color_system == "standard":
            # A 16-colour terminal: use its own palette, so red pips stay red. (Otherwise Textual
            # turns ANSI names into its theme's RGB, which the terminal then rounds, e.g. to
            # magenta.)
            self.theme = "ansi-dark"
        self.shown_game: object = None
        self.shown_key: tuple[object, object] | None = None

    def run(self, *args: Any, headless: bool = False, **kwargs: Any) -> Any:
        """Textual's run, refused with NoTerminal where no screen can be drawn
        (kismet_tui/needs_terminal.py; the command says the words and exits 2)."""
        if not headless:
            why = refusal(sys.stdout)
            if why is not None:
                raise NoTerminal(why)
        return super().run(*args, headless=headless, **kwargs)

    def _handle_exception(self, error: Exception) -> None:
        """An error nobody caught ends the app (Textual's way, exit code 1): its traceback
        goes to the command's log file first (kismet_tui/command.py says where). Textual's
        private hook, which door_child.py wraps too: pyproject.toml bounds Textual below 9."""
        if terminal.ending() and isinstance(error, NoMatches):
            # Asked to end while a screen was still being set up (ctrl+c in the first
            # moments): Textual is taking the widgets down, and a screen that looks for one
            # meets it gone. That is the exit going on, not a crash.
            logging.getLogger("kismet").info(
                "a screen met its widgets gone as the app exited: %s", error
            )
            return
        self.failed = True
        if not isinstance(error, MemoryError):  # (nothing left to format it with)
            logging.getLogger("kismet").error("the app stopped on an error", exc_info=error)
        super()._handle_exception(error)

    def get_driver_class(self) -> type[Driver]:
        """A driver that survives its terminal going away (kismet_tui/terminal.py); in ASCII
        mode (widgets/glyphs.py) every frame is made ASCII on its way out."""
        from .widgets.glyphs import ascii_mode, to_ascii

        base = terminal.guarded(super().get_driver_class())
        if not ascii_mode():
            return base

        # (A base known only at run time: mypy cannot check a class made on it.)
        class AsciiDriver(base):  # type: ignore[valid-type,misc]
            def write(self, data: str) -> None:
                super().write(to_ascii(data))

        return AsciiDriver

    def get_key_display(self, binding: Binding) -> str:
        """In ASCII mode the footer names keys in words ("enter", not a symbol that would
        reach the terminal as "?")."""
        from .widgets.glyphs import ascii_mode

        shown = super().get_key_display(binding)
        if not ascii_mode() or shown.isascii():
            return shown
        words = {"↑↓": "up/down", "←→": "left/right", "⌫": "bksp"}  # short: footers fit 80
        return words.get(shown, binding.key.split(",")[0].replace("_", " "))

    # ---- start and the network worker ---------------------------------------------------
    def on_mount(self) -> None:
        terminal.running(self)  # SIGHUP and SIGTERM now ask this app to exit
        self.check_size()
        self.screen_change_signal.subscribe(self, lambda _screen: self.typing_signal.update(self))
        # The build tells us from its own thread; the message brings the news to ours.
        self.stop_listening = background.listen(self.build_moved_on)
        self.read_build()
        self.start()

    def on_unmount(self) -> None:
        terminal.running(None)
        if self.stop_listening is not None:
            self.stop_listening()

    # ---- a browser page's soft keyboard (kismet_tui/web_typing.py) ----------------------
    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.typing_signal.update(self)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self.typing_signal.update(self)

    # ---- the terminal's size -------------------------------------------------------------
    def on_resize(self, event: events.Resize) -> None:
        self.check_size(event.size)

    async def on_event(self, event: events.Event) -> None:
        """Behind the too-small word nothing of the screen can be seen, so no key acts there
        (a blind throw, a typed letter grabbing a race card): only quitting gets through."""
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and event.key not in KEYS_BEHIND_TOO_SMALL
            and self.screen_stack
            and self.screen.has_class("-too-small")
        ):
            event.stop()
            return
        await super().on_event(event)

    def check_size(self, size: tuple[int, int] | None = None) -> None:
        """Below 80x24 every screen shows only the size it needs (widgets/toosmall.py)."""
        from .widgets.toosmall import TooSmall

        width, height = size or self.size
        for screen in self.screen_stack:
            for widget in screen.query(TooSmall):
                widget.show_size(width, height)

    def start(self) -> None:
        """Open the lobby and start listening to the host (the replay viewer does otherwise)."""
        from .screens.lobby import LobbyScreen

        self.push_screen(LobbyScreen())
        self.read_host()

    @work(thread=True, group="warm-up")
    def warm_up(self) -> None:
        """Import the bots and the dice advisor in the background: they load the solver's
        tables, which would otherwise freeze the first dice screen. Started once the first
        screen is drawn (on_connection_changed): the imports hold the interpreter's lock for
        a good while, which would hold that screen back too."""
        from .screens import help  # noqa: F401  (rich's markdown: the first `?` opens at once)
        from .screens.dice import load_advisor

        load_advisor()

    @work(exclusive=True, group="host")
    async def read_host(self) -> None:
        """The only place that awaits the host: every message becomes its typed message."""
        try:
            stream = self.client.messages()  # listen before connecting: miss nothing
            if self.connect_fn is not None:
                await self.connect_fn()
            self.reached = True
            self.post_message(ConnectionChanged("connected", self.address))
            async for msg in stream:
                message = host_message(msg)
                if message is not None and self.room_for(message):
                    self.post_message(message)
        except OSError:
            words = f"Could not reach a host at {self.address}. Is kismet-host running there?"
            if not self.reached:
                self.unreachable = words  # the command exits 1 with these words (cli.py)
            self.post_message(ConnectionChanged("closed", words))
            return
        except Exception as exc:  # refused (e.g. another protocol version): say so, keep the app
            self.post_message(ConnectionChanged("closed", f"{self.address}: {words_of(exc)}"))
            return
        self.post_message(
            ConnectionChanged("closed", f"{self.address}: the host closed the connection")
        )

    async def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.connection = ConnectionStatus(message.state, message.detail)
        if message.state == "connected" and self.quick:
            self.quick = False
            from .screens.new_table import NewTableScreen

            await self.push_screen(NewTableScreen(quick=True))
        if message.state == "connected" and not self.warming_up:
            self.warming_up = True
            self.call_after_refresh(self.warm_up)  # the first screen is mounted: once drawn

    # ---- what the host says ---------------------------------------------------------------
    # The handlers of a kind run first; `host_said`, for every kind, runs last.
    @on(HostRefused)
    def host_refused(self, message: HostRefused) -> None:
        if message.re is None:  # answers to our requests are shown where they were sent (send)
            self.show_refusal(message.words or "The host refused that.")

    def room_for(self, message: HostMessage) -> bool:
        """Whether to post a host message now: a chat line only while fewer than
        CLIENT_CHAT_WAITING wait to be shown; past that it is counted, and shown as one line
        once the app has caught up (chat_heard). Everything else always."""
        if not isinstance(message, ChatHeard):
            return True
        if self.chat_waiting >= limits.CLIENT_CHAT_WAITING:
            self.chat_skipped += 1
            return False
        self.chat_waiting += 1
        return True

    @on(ChatHeard)
    def chat_heard(self, message: ChatHeard) -> None:
        self.chat_waiting -= 1
        self.add_chat(message.name, message.text)
        if not self.chat_waiting and self.chat_skipped:
            skipped, self.chat_skipped = self.chat_skipped, 0
            self.add_chat_note(skipped_words(skipped))

    @on(ChatSkipped)
    def chat_skipped_told(self, message: ChatSkipped) -> None:
        self.add_chat_note(message.words or skipped_words(message.count))

    @on(HostNotice)
    def host_notice(self, message: HostNotice) -> None:
        self.notify(message.words, timeout=6, markup=False)

    @on(FairnessChecked)
    def fairness_checked(self, message: FairnessChecked) -> None:
        if not message.ok:
            self.notify(
                message.words,
                title="Chance not verified",
                severity="error",
                timeout=30,
                markup=False,
            )

    @on(ConnectionReported)
    def connection_reported(self, message: ConnectionReported) -> None:
        self.connection = ConnectionStatus(message.state or self.connection.state, message.words)

    @on(TableChanged)
    def table_changed(self, message: TableChanged) -> None:
        notice = self.notice
        if (
            notice is not None
            and notice.severity != "error"
            and notice.moment != self.table_moment()
        ):
            # "Not everyone is ready: waiting for Bo" once Bo is ready, a chip table's words
            # once the table exists, "another game as soon as Ana presses r" at a new table.
            self.notice = None
        if self.rematch_wanted:
            self.run_worker(self.rematch_check(), group="rematch", exclusive=True)

    @on(EventApplied)
    def event_applied(self, message: EventApplied) -> None:
        if message.seat is not None and message.seat == self.client.seat:
            self.drop_stale_notice()  # you have acted since: a refusal of before is out of date

    @on(HostMessage)
    def host_said(self, message: HostMessage) -> None:
        """Show the screen that fits, then hand the message on to every screen of ours: the
        game under its end screen still follows the game. (A screen pushed just now hears it
        too, once mounted.) Textual's own first screen, under all of ours, is not told: it
        has nothing to do with the host, and a message it handles marks it as changed, so
        the screen on top is painted again whole (for each push of the table list)."""
        if not self.screen_stack or not self.is_running:
            return  # shutting down
        if isinstance(message, (ChatHeard, ChatSkipped)):
            # The screens show chat from `chat_said`: handed down, each line would redraw the
            # game, which is what a flood of chat cost a player (issue 28).
            return
        self.route()
        for screen in self.screen_stack:
            if isinstance(screen, OnKismetApp):
                screen.post_message(dataclasses.replace(message))

    def watch_connection(self, old: ConnectionStatus, new: ConnectionStatus) -> None:
        """A change of the connection that the player must hear of gets a notice."""
        if new.state == "closed" and (old.state != "closed" or old.detail != new.detail):
            self.notify(new.detail or "Disconnected.", severity="error", timeout=8, markup=False)
        elif new.state == "reconnecting" and old.state == "connected":
            self.notify(
                new.detail or "Connection lost. Reconnecting...",
                severity="warning",
                timeout=4,
                markup=False,
            )
        elif new.state == "connected" and old.state == "reconnecting":
            self.notify(
                "Reconnected: you are back in your seat."
                if self.client.seat is not None
                else "Reconnected.",
                timeout=3,
                markup=False,
            )

    def route(self) -> None:
        """Show the screen that fits the client's state: a game screen while a game is on.

        `shown_game` remembers the game a screen was made for, because a pushed screen joins
        the stack only a moment later, while more messages may already be arriving."""
        from .screens.end import EndScreen
        from .screens.game import GameScreen

        game = self.client.game
        if game is self.shown_game:
            return
        header: Mapping[str, Any] = self.client.header or {}
        key = (
            (header.get("commit") or header.get("seed"), header.get("t0"))
            if game is not None
            else None
        )
        if game is not None and key == self.shown_key:
            # The same game rebuilt (a resync or a reconnect): keep the screen, swap the replica.
            self.shown_game = game
            for screen in self.screen_stack:
                if isinstance(screen, GameScreen):
                    screen.game = game
            return
        self.shown_key = key
        previous, self.shown_game = self.shown_game, game
        self.drop_stale_notice()  # "Ready for another game: ..." is over once one starts
        if game is None:
            # The table is gone or we left it: back to the lobby.
            while len(self.screen_stack) > 2:
                self.pop_screen()
            return
        if previous is not None and any(isinstance(s, GameScreen) for s in self.screen_stack):
            from .screens.help import HelpScreen

            # A rematch or a new game at the same table: a fresh screen for it.
            while isinstance(self.screen, (EndScreen, HelpScreen)):
                self.pop_screen()
            self.switch_screen(game_screen_for(game.RULESET))
        else:
            self.push_screen(game_screen_for(game.RULESET))

    # ---- notices: on the status bar, never over the board ----------------------------------
    def notify(
        self,
        message: str | Text,
        *,
        title: str = "",
        severity: str = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice goes to the status bar (top line): a toast in a corner would cover
        cards, dice or the hand that can still be played. No toast is made; `notices_shown`
        keeps the words of the last ones."""
        words = message.plain if isinstance(message, Text) else str(message)
        # Long enough to read: a few seconds, more for more words.
        seconds = max(timeout or 0, 4.0 + len(words) / 20)
        notice = Notice(words, severity, self.table_moment())
        self.notice = notice
        self.notices_shown.append(words)
        del self.notices_shown[:-50]
        self.set_timer(seconds, lambda: self.clear_notice(notice), name="notice")

    def table_moment(self) -> object:
        """What a notice may be about at the table: which table, its state, who sits there
        and who is ready (not who is connected or away: that moves on by itself)."""
        table = self.client.table
        if not table:
            return None
        seats = tuple(
            (str(s.get("name")), bool(s.get("ready")))
            for s in table.get("seats") or []
            if isinstance(s, dict)
        )
        return table.get("id"), table.get("state"), seats

    def drop_stale_notice(self) -> None:
        """Things moved on: a refusal or a word about what is coming goes (an error stays
        its time: a lost connection, chance not verified)."""
        if self.notice is not None and self.notice.severity != "error":
            self.notice = None

    def clear_notice(self, notice: Notice) -> None:
        """The notice's time is up (unless a newer one took its place)."""
        if self.notice is notice:
            self.notice = None

    def build_moved_on(self) -> None:
        """Called from the build's thread: only hand the news on to the app's own."""
        self.post_message(BuildChanged())

    def on_build_changed(self, message: BuildChanged) -> None:
        self.read_build()

    def read_build(self) -> None:
        """What the background build says now; words that end by themselves ("ready") are
        read again when they do."""
        long_words = background.status_words()
        short_words = background.status_words(short=True)
        self.build_words = (long_words, short_words) if long_words and short_words else None
        ends_in = background.status_shown_for()
        if ends_in is not None:
            self.set_timer(ends_in + 0.05, self.read_build, name="build words")

    # ---- what the screens ask for ---------------------------------------------------------
    @on(RefusalToShow)
    def refusal(self, message: RefusalToShow) -> None:
        self.show_refusal(message.words)

    @on(RematchAsked)
    async def rematch_asked(self, message: RematchAsked) -> None:
        await self.rematch()

    @on(LeaveAsked)
    async def leave_asked(self, message: LeaveAsked) -> None:
        await self.leave_to_lobby()

    def show_refusal(self, words: str) -> None:
        words = self.seat_words(str(words))
        self.notify(words, title="Not allowed", severity="warning", timeout=5, markup=False)
        # The move log keeps it, for whoever missed the status line.
        from .screens.game import GameScreen

        for screen in self.screen_stack:
            if isinstance(screen, GameScreen):
                screen.log_refusal(words)

    def seat_words(self, words: str) -> str:
        """The engine names seats by number ("Not your turn: seat 1 is rolling."); while a game
        is on, say the player's name instead."""
        game = self.client.game
        if game is None:
            return words
        from .screens.game import seat_names

        names = seat_names(self.client, game.seats)

        def name(match: re.Match[str]) -> str:
            seat = int(match.group(1))
            return names[seat] if seat < len(names) else match.group(0)

        return re.sub(r"\b[Ss]eat (\d+)\b", name, words)

    async def leave_to_lobby(self) -> None:
        """Leave the table (ctrl+l from a game, its results or its board): one press takes
        you to the lobby, and says so. The answer to `leave` is a quiet one (no host message
        routes the screens), so the screens follow here."""
        table, header = self.client.table, self.client.header
        me = self.client.client_id
        playing = (
            table is not None and table.get("state") == "playing" and self.client.seat is not None
        )
        if not await send_ok(self, self.client.leave):
            return
        self.route()
        where = f"table {table['id']}" if table is not None else "the table"
        if table is None or not playing:
            self.notify(f"You left {where}: back in the lobby.", markup=False)
            return
        from .seat_waits import seat_waits_words

        paused = False  # (`kismet`'s own host pauses a game with bots)
        try:
            paused = any(
                entry.get("id") == table["id"] and entry.get("paused")
                for entry in await self.client.list_tables()
            )
        except Exception:  # (the connection went: its own words say so)
            pass
        self.notify(
            seat_waits_words(table, header or {}, me, where, paused), timeout=12, markup=False
        )

    async def rematch(self) -> None:
        """Play again at the same table. Everyone who wants another game says ready (the owner
        too), so every member sees who wants one and whom the table waits for; the owner's
        client starts the game once nobody is missing (see rematch_check)."""
        table = self.client.table
        if not await send_ok(self, self.client.ready):
            return
        if table is not None and self.is_owner(table):
            self.rematch_wanted, self.rematch_at = True, table.get("id")
            await self.rematch_check()
        else:
            seats = (table.get("seats") or []) if table is not None else []
            owner_id = table.get("owner") if table is not None else None
            owner = next((s.get("name") for s in seats if s.get("client_id") == owner_id), None)
            self.notify(
                f"Ready for another game: {owner or 'the table’s owner'} starts it.", markup=False
            )

    def is_owner(self, table: TableShown | None) -> bool:
        me = self.client.client_id
        return table is not None and me is not None and table.get("owner") == me

    async def rematch_check(self) -> None:
        """The owner asked for another game: start it as soon as every player wants one."""
        table = self.client.table
        if self.rematch_wanted and (table.get("id") if table else None) != self.rematch_at:
            self.rematch_wanted = False  # the owner is at another table (or none) now
        if (
            not self.rematch_wanted
            or table is None
            or table.get("state") == "playing"
            or not self.is_owner(table)
        ):
            return
        waiting = rematch_waiting(table)
        if waiting:
            verb = "press" if " and " in waiting else "presses"
            self.notify(f"Another game as soon as {waiting} {verb} r.", markup=False)
            return
        self.rematch_wanted = False
        await send(self, self.client.start)

    async def on_chat_input_said(self, message: ChatInput.Said) -> None:
        await send(self, partial(self.client.chat, message.words))

    def add_chat(self, name: str, text: str) -> None:
        line = Text()
        line.append(name, style="bold")
        line.append(": ")
        line.append(text)
        self.keep_chat(line)

    def add_chat_note(self, words: str) -> None:
        """A line about the chat, not of it (lines skipped)."""
        self.keep_chat(Text(words, style="dim italic"))

    def keep_chat(self, line: Text) -> None:
        self.chat_lines.append(line)
        del self.chat_lines[: -limits.CLIENT_CHAT_LINES]
        self.chat_said = line

    # ---- keys ---------------------------------------------------------------------------
    def current_ruleset(self) -> str | None:
        game = self.client.game
        return game.RULESET if game is not None else None

    def action_help(self) -> None:
        from .screens.help import HelpScreen  # rich's markdown: loaded when first asked for

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        from .screens.end import EndScreen

        # Over the end box, what its rating change means comes first.
        self.push_screen(
            HelpScreen(self.current_ruleset(), rating_first=isinstance(self.screen, EndScreen))
        )

    def action_help_quit(self) -> None:
        """ctrl+c (Textual's binding): in a terminal it often means "stop", so say how."""
        self.notify("ctrl+q quits Kismet.", timeout=4, markup=False)

    async def action_quit(self) -> None:
        if self.on_quit is not None:
            try:
                await self.on_quit()
            except Exception:
                pass
        self.exit()
