"""The Kismet Textual app: one client connection, the lobby, and a screen per game.

The app owns the network client. One worker (`read_host`) awaits the client's messages and
posts each as a HostMessage; `on_host_message` then shows refusals, routes chat, and switches
between the lobby, the game screen and the end-of-game screen. Screens only read the client's
replica (`client.game`, `client.seat`, `client.table`) and send through the app's helpers,
which turn every refusal into plain words on screen.
"""

from __future__ import annotations

import re
import time
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App
from textual.binding import Binding

from .messages import ConnectionChanged, HostMessage
from .screens.help import HelpScreen


def table_seats(table: dict | None) -> list[dict]:
    """The seats of a table message as a list of {name, ready, bot, away, you} (best effort:
    missing fields read as empty)."""
    if not table:
        return []
    seats = table.get("seats") or []
    out = []
    for seat in seats:
        if isinstance(seat, dict):
            out.append(seat)
        elif isinstance(seat, str):
            out.append({"name": seat})
        else:
            out.append({"name": None})
    return out


def rematch_people(table: dict | None) -> tuple[list[str], list[str]]:
    """After a game: (players who want another one, players the table waits for), by name.
    Bots are always ready and left out."""
    wants, waiting = [], []
    for seat in (table or {}).get("seats") or []:
        if not isinstance(seat, dict) or seat.get("bot"):
            continue
        (wants if seat.get("ready") else waiting).append(str(seat.get("name") or "?"))
    return wants, waiting


def and_words(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""


def rematch_waiting(table: dict | None) -> str:
    """Whom another game waits for, as words ("Bo and Cy"), or "" if nobody."""
    return and_words(rematch_people(table)[1])


def rematch_line(table: dict | None) -> str:
    """One line for the end of a game: who wants another and whom it waits for."""
    if not table or table.get("state") == "playing":
        return ""
    wants, waiting = rematch_people(table)
    if not wants:
        return ""
    verb = "wants" if len(wants) == 1 else "want"
    line = f"{and_words(wants)} {verb} another game"
    return line + (f"; waiting for {and_words(waiting)} to press r." if waiting else ".")


class KismetApp(App):
    """`client` is a kismet_tui.net.client.Client (or anything with its interface).

    `connect` (async callable) is awaited once at start to open the connection. `quick` opens
    the new-table form at once and starts the game as soon as the table exists (local play).
    """

    TITLE = "Kismet"
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = "kismet.tcss"
    BINDINGS = [
        Binding("f1,question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, client, *, connect=None, address: str = "", quick: bool = False,
                 on_quit=None) -> None:
        super().__init__()
        self.client = client
        self.connect_fn = connect
        self.address = address
        self.quick = quick
        self.on_quit = on_quit
        self.conn_state = "connecting"
        self.conn_detail = address
        self.chat_lines: list[Text] = []
        # The notice the status bar shows now: (words, severity, until monotonic seconds).
        self.notice: tuple[str, str, float] | None = None
        # One lasting line of information for the status bar (e.g. a table being built);
        # set it with set_status_info().
        self.status_info = ""
        self.notices_shown: list[str] = []
        self.rematch_wanted = False   # the owner pressed r at the end: start when all want one
        if self.console.color_system == "standard":
            # A 16-colour terminal: use its own palette, so red pips stay red. (Otherwise Textual
            # turns ANSI names into its theme's RGB, which the terminal then rounds, e.g. to
            # magenta.)
            self.theme = "ansi-dark"
        self.shown_game = None
        self.shown_key = None

    def get_driver_class(self):
        """In ASCII mode (widgets/glyphs.py) every frame is made ASCII on its way out."""
        from .widgets.glyphs import ascii_mode, to_ascii

        base = super().get_driver_class()
        if not ascii_mode():
            return base

        class AsciiDriver(base):
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
        words = {"↑↓": "up/down", "←→": "left/right"}
        return words.get(shown, binding.key.split(",")[0].replace("_", " "))

    # ---- start and the network worker ---------------------------------------------------
    def on_mount(self) -> None:
        self.check_size()
        self.start()

    # ---- the terminal's size -------------------------------------------------------------
    def on_resize(self, event) -> None:
        self.check_size(event.size)

    def check_size(self, size=None) -> None:
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
        self.warm_up()

    @work(thread=True, group="warm-up")
    def warm_up(self) -> None:
        """Import the bots and the dice advisor in the background: they load the solver's
        tables, which would otherwise freeze the first new-table form or dice screen."""
        from .screens.dice import load_advisor

        load_advisor()

    @work(exclusive=True, group="host")
    async def read_host(self) -> None:
        """The only place that awaits the host: every message becomes a HostMessage."""
        try:
            stream = self.client.messages()  # listen before connecting: miss nothing
            if self.connect_fn is not None:
                await self.connect_fn()
            self.post_message(ConnectionChanged("connected", self.address))
            async for msg in stream:
                self.post_message(HostMessage(msg))
        except OSError:
            self.post_message(ConnectionChanged(
                "closed", f"Could not reach a host at {self.address}. Is kismet-host running there?"))
            return
        except Exception as exc:  # refused (e.g. another protocol version): say so, keep the app
            words = getattr(exc, "words", None) or str(exc) or type(exc).__name__
            self.post_message(ConnectionChanged("closed", f"{self.address}: {words}"))
            return
        self.post_message(ConnectionChanged("closed", f"{self.address}: the host closed the connection"))

    def connection_state(self) -> tuple[str, str]:
        """What the status bar shows: the client's live state when it has one. Only reads:
        `conn_state` moves with the messages, so a redraw between a drop and its message
        cannot swallow the "connection lost" notice."""
        live = getattr(self.client, "state", None)
        state = live if isinstance(live, str) and live else self.conn_state
        return state, self.conn_detail

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        self.conn_state = message.state
        self.conn_detail = message.detail
        if message.state == "closed":
            self.notify(message.detail or "Disconnected.", severity="error", timeout=8, markup=False)
        if message.state == "connected" and self.quick:
            self.quick = False
            from .screens.new_table import NewTableScreen

            self.push_screen(NewTableScreen(quick=True))

    # ---- what the host says --------------------------------------------------------------
    def on_host_message(self, message: HostMessage) -> None:
        msg = message.msg
        kind = msg.get("type")
        if not self.screen_stack or not self.is_running:
            return  # shutting down
        if kind == "error" and msg.get("re") is None:
            # Answers to our requests are shown where the request was sent (send()).
            self.show_refusal(msg.get("words") or "The host refused that.")
        elif kind == "chat":
            self.add_chat(msg)
        elif kind == "notice":  # the host's word to the table: a member removed, saving again
            self.notify(str(msg.get("words") or ""), timeout=6, markup=False)
        elif kind == "fairness" and not msg.get("ok"):
            self.notify(str(msg.get("words")), title="Chance not verified", severity="error",
                        timeout=30, markup=False)
        elif kind == "connection":
            previous, self.conn_state = self.conn_state, msg.get("state", self.conn_state)
            self.conn_detail = msg.get("words", "")
            if self.conn_state == "reconnecting" and previous == "connected":
                self.notify(self.conn_detail or "Connection lost. Reconnecting...", severity="warning",
                            timeout=4, markup=False)
            elif self.conn_state == "connected" and previous == "reconnecting":
                self.notify("Reconnected: you are back in your seat." if getattr(self.client, "seat", None)
                            is not None else "Reconnected.", timeout=3, markup=False)
        if kind == "table" and self.rematch_wanted:
            self.run_worker(self.rematch_check(), group="rematch", exclusive=True)
        self.route()
        # Taken before any handler runs: a handler may push a screen (the end of a game).
        *under, top = self.screen_stack
        handler = getattr(top, "on_host", None)
        if handler is not None:
            handler(msg)
        # Screens under a modal (the game under its end screen) still follow the game.
        for screen in under:
            follow = getattr(screen, "follow_host", None)
            if follow is not None:
                follow(msg)

    def route(self) -> None:
        """Show the screen that fits the client's state: a game screen while a game is on.

        `shown_game` remembers the game a screen was made for, because a pushed screen joins
        the stack only a moment later, while more messages may already be arriving."""
        from .screens.end import EndScreen
        from .screens.game import GameScreen, game_screen_for

        game = getattr(self.client, "game", None)
        if game is self.shown_game:
            return
        header = getattr(self.client, "header", None) or {}
        key = (header.get("commit") or header.get("seed"), header.get("t0")) if game is not None else None
        if game is not None and key == self.shown_key:
            # The same game rebuilt (a resync or a reconnect): keep the screen, swap the replica.
            self.shown_game = game
            for screen in self.screen_stack:
                if isinstance(screen, GameScreen):
                    screen.game = game
            return
        self.shown_key = key
        previous, self.shown_game = self.shown_game, game
        if game is None:
            # The table is gone or we left it: back to the lobby.
            while len(self.screen_stack) > 2:
                self.pop_screen()
            return
        if previous is not None and any(isinstance(s, GameScreen) for s in self.screen_stack):
            # A rematch or a new game at the same table: a fresh screen for it.
            while isinstance(self.screen, (EndScreen, HelpScreen)):
                self.pop_screen()
            self.switch_screen(game_screen_for(game.RULESET))
        else:
            self.push_screen(game_screen_for(game.RULESET))

    # ---- notices: on the status bar, never over the board ----------------------------------
    def notify(self, message, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notice goes to the status bar (top line): a toast in a corner would cover
        cards, dice or the hand that can still be played. No toast is made; `notices_shown`
        keeps the words of the last ones."""
        words = message.plain if isinstance(message, Text) else str(message)
        # Long enough to read: a few seconds, more for more words.
        seconds = max(timeout or 0, 4.0 + len(words) / 20)
        self.notice = (words, severity, time.monotonic() + seconds)
        self.notices_shown.append(words)
        del self.notices_shown[:-50]
        self.refresh_status_bars()

    def current_notice(self) -> tuple[str, str] | None:
        """(words, severity) of the notice to show now, or None."""
        if self.notice is None:
            return None
        words, severity, until = self.notice
        if time.monotonic() > until:
            self.notice = None
            return None
        return words, severity

    def set_status_info(self, words: str | None) -> None:
        """A lasting line for the status bar of every screen (None or "" clears it)."""
        self.status_info = words or ""
        self.refresh_status_bars()

    def refresh_status_bars(self) -> None:
        from .widgets.status import StatusBar

        for screen in self.screen_stack:
            for bar in screen.query(StatusBar):
                bar.refresh_status()

    # ---- sending, with refusals in plain words ---------------------------------------------
    def show_refusal(self, words: str) -> None:
        words = self.seat_words(str(words))
        self.notify(words, title="Not allowed", severity="warning", timeout=5, markup=False)
        # The move log keeps it, for whoever missed the status line.
        from .screens.game import GameScreen

        for screen in self.screen_stack:
            if isinstance(screen, GameScreen) and screen.is_mounted:
                screen.log_line(words, "italic bright_yellow")

    def seat_words(self, words: str) -> str:
        """The engine names seats by number ("Not your turn: seat 1 is rolling."); while a game
        is on, say the player's name instead."""
        game = getattr(self.client, "game", None)
        if game is None:
            return words
        from .screens.game import seat_names

        names = seat_names(self.client, game.seats)

        def name(match: re.Match) -> str:
            seat = int(match.group(1))
            return names[seat] if seat < len(names) else match.group(0)

        return re.sub(r"\b[Ss]eat (\d+)\b", name, words)

    async def send(self, method: str, *args, _failed=None, **kwargs) -> Any:
        """Call a client method; any failure is shown, never raised into the UI (the result
        is then `_failed`)."""
        try:
            fn = getattr(self.client, method)
            result = fn(*args, **kwargs)
            if hasattr(result, "__await__"):
                result = await result
            return result
        except Exception as exc:  # refusals and dropped connections alike: tell the player
            words = getattr(exc, "words", None) or getattr(exc, "reason", None) or str(exc)
            self.show_refusal(words or type(exc).__name__)
            return _failed

    async def send_ok(self, method: str, *args, **kwargs) -> bool:
        """Like send, but only says whether the host took it."""
        failed = object()
        result = await self.send(method, *args, _failed=failed, **kwargs)
        return result is not failed

    async def create_table(self, ruleset: str, options: dict, bots: list[str], start: bool = False) -> bool:
        """Create a table; with `start`, start its game at once (local play: bots are ready)."""
        if not await self.send_ok("create_table", ruleset, options, bots):
            return False
        if start:
            await self.send_ok("start")
        return True

    async def rematch(self) -> None:
        """Play again at the same table. Everyone who wants another game says ready (the owner
        too), so every member sees who wants one and whom the table waits for; the owner's
        client starts the game once nobody is missing (see rematch_check)."""
        table = getattr(self.client, "table", None) or {}
        if not await self.send_ok("ready", True):
            return
        if self.is_owner(table):
            self.rematch_wanted = True
            await self.rematch_check()
        else:
            owner = next((s.get("name") for s in table.get("seats") or []
                          if s.get("client_id") == table.get("owner")), None)
            self.notify(f"Ready for another game: {owner or 'the table’s owner'} starts it.", markup=False)

    def is_owner(self, table: dict | None) -> bool:
        me = getattr(self.client, "client_id", None)
        return bool(table) and me is not None and table.get("owner") == me

    async def rematch_check(self) -> None:
        """The owner asked for another game: start it as soon as every player wants one."""
        table = getattr(self.client, "table", None) or {}
        if not self.rematch_wanted or table.get("state") == "playing" or not self.is_owner(table):
            return
        waiting = rematch_waiting(table)
        if waiting:
            self.notify(f"Another game as soon as {waiting} press r.", markup=False)
            return
        self.rematch_wanted = False
        await self.send("start")

    async def send_chat(self, words: str) -> None:
        await self.send("chat", words)

    def add_chat(self, msg: dict) -> None:
        line = Text()
        line.append(str(msg.get("name") or msg.get("from") or "?"), style="bold")
        line.append(": ")
        line.append(str(msg.get("text", "")))
        self.chat_lines.append(line)
        del self.chat_lines[:-200]

    # ---- keys ---------------------------------------------------------------------------
    def current_ruleset(self) -> str | None:
        game = getattr(self.client, "game", None)
        return getattr(game, "RULESET", None)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(self.current_ruleset()))

    async def action_quit(self) -> None:
        if self.on_quit is not None:
            try:
                await self.on_quit()
            except Exception:
                pass
        self.exit()
