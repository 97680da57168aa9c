"""The lobby: the host's tables, the table you sit at (seats, ready marks), chat, and start.

Keys: n new table, enter sit down, s watch, y ready, g start, l leave, r refresh, t talk,
h the records (screens/records.py).
The table list is asked for once when the connection comes up (the app's `connection`,
watched); after that the host pushes what changes (`tables_changed`, docs/protocol.md; the
client applies it), so nothing polls, and only the rows that changed are drawn again (one
connection churning at a table must not cost every lobby a redraw). Under a game the lobby
keeps the newest list without drawing it, and draws it when it is shown again; `r` asks
anew. Chat lines come in
through the app's `chat_said`.
"""

from __future__ import annotations

from functools import partial

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, RichLog, Static
from textual.widgets.data_table import ColumnKey

from protocol.host_messages import TableShown, TableSummary

from ..app_ref import OnKismetApp, kismet_app
from ..app_state import ConnectionStatus
from ..messages import HostMessage, RefusalToShow, TableChanged, TablesListed, send
from ..widgets.art import seat_colour
from ..widgets.chat import MUTE, ChatInput, mute_offered
from ..widgets.clicks import ActionBar
from ..widgets.footer import KeyFooter
from ..widgets.glyphs import glyph
from ..widgets.names import fit
from ..widgets.status import StatusBar
from ..widgets.toosmall import TooSmall
from .game import MoveLog
from .remove import RemoveScreen, removable

# The lobby's buttons (the mouse's way to its keys, kismet_tui/widgets/clicks.py): each is
# drawn only while its key acts, in the order a player meets them.
BUTTONS = [
    ("Sit", "screen.join(False)"),
    ("Watch", "screen.join(True)"),
    ("New table", "screen.new_table"),
    ("Ready", "screen.ready(True)"),
    ("Not ready", "screen.ready(False)"),
    ("Start", "screen.start"),
    ("Remove", "screen.remove"),
    ("Talk", "screen.talk"),
    ("Mute watchers", "screen.mute_watchers"),
    ("Let watchers talk", "screen.unmute_watchers"),
    ("Leave", "screen.leave"),
    ("Refresh", "screen.refresh(True)"),
    ("Records", "screen.records"),
    ("Invite", "screen.open_network"),
    ("Help", "app.help"),
]
COLUMNS = [("#", 2), ("game", 5), ("seats", 5), ("state", 8), ("players", 20)]
PAUSED_WORDS = "paused: enter to go back"
GAME_NAMES = {"dice": "dice (1964)", "race": "race (1997)", "knock": "knock (1997)"}


def lobby_where(invite_open: bool = False) -> str:
    """The status bar's place: the lobby, while Invite is open a word saying so, and a
    keyless ssh player's rejoin code, kept in sight there (the help, `?`, shows it too)."""
    from ..door_env import rejoin_code

    code = rejoin_code()
    if code:
        return f"lobby · your rejoin code {code}"
    return "lobby · Invite open: o closes it" if invite_open else "lobby"


def render_my_table(
    table: TableShown | None,
    my_id: int | None,
    name_width: int = 18,
    now_ms: int | None = None,
    paused: list[object] | None = None,
) -> Text:
    """The table you are at: game, options in words, each seat with its ready mark, and, once
    the owner asked to start, the seconds until seats still unready are freed (`now_ms`: the
    host's clock). At no table: the paused games waiting for you (`paused`, table ids:
    `kismet`'s own host pauses a game with bots while you are away from it)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if not table:
        text.append("You are not at a table.\n\n", Style(bold=True))
        for table_id in paused or []:
            text.append(
                f"Table {table_id}: {PAUSED_WORDS}\n\n", Style(bold=True, color="bright_yellow")
            )
        text.append(
            "n  make a new table\nenter  sit at the chosen one\ns  watch it",
            Style(color="bright_black"),
        )
        return text
    ruleset = str(table.get("ruleset"))
    text.append(
        f"Table {table.get('id')} {glyph('·')} {GAME_NAMES.get(ruleset, ruleset)}\n",
        Style(bold=True),
    )
    state = table.get("state", "")
    text.append(
        f"{state} {glyph('·')} {len(table.get('seats') or [])}/{table.get('max_seats', '?')} seats\n",
        Style(color="bright_black"),
    )
    options = table.get("options")
    limit = time_limit_words(options.get("turn_limit_ms") if isinstance(options, dict) else None)
    if limit:
        text.append(
            limit + "\n", Style(color="bright_yellow" if limit == NO_LIMIT else "bright_black")
        )
    owner = table.get("owner")
    for index, seat in enumerate(table.get("seats") or []):
        ready = seat.get("ready") or (seat.get("client_id") == owner and owner is not None)
        mark = glyph("✓") if ready else glyph("·")
        text.append(
            f" {mark} ", Style(color="bright_green" if ready else "bright_black", bold=True)
        )
        text.append(
            fit(str(seat.get("name") or "?"), name_width),
            Style(color=seat_colour(index), bold=True),
        )
        tags = []
        if seat.get("client_id") == my_id and my_id is not None:
            tags.append("you")
        if seat.get("client_id") == owner and owner is not None:
            tags.append("owner")
        if seat.get("bot"):
            tags.append("bot")
        if seat.get("idle"):
            tags.append("idle: the host plays")
        elif not seat.get("connected", True) and not seat.get("bot"):
            tags.append("away")
        if tags:
            text.append(f" ({', '.join(tags)})", Style(color="bright_black"))
        text.append("\n")
    text.append_text(unready_countdown(table, my_id, now_ms))
    text.append_text(all_ready_words(table, my_id))
    watchers = table.get("spectators") or []
    if watchers:
        text.append(
            f"watching: {fit(', '.join(str(w.get('name')) for w in watchers), 60)}\n",
            Style(color="bright_black"),
        )
    if table.get("watchers_muted"):
        text.append("watchers' chat: off (the owner's m)\n", Style(color="bright_black"))
    return text


NO_LIMIT = "no time limit (chosen by the owner)"


def time_limit_words(turn_limit_ms: object) -> str:
    """A table's turn limit in words [D31]: "60 s per turn", or that the owner chose none
    (so nobody sits down unaware); "" for a game without one (race: its round limit)."""
    if not isinstance(turn_limit_ms, int) or isinstance(turn_limit_ms, bool):
        return ""
    if turn_limit_ms == 0:
        return NO_LIMIT
    return f"{turn_limit_ms / 1000:g} s per turn"


def unready_countdown(table: TableShown, my_id: int | None, now_ms: int | None) -> Text:
    """After the owner asked to start: you, not ready, are told to press y, with the
    seconds left before your seat is freed; the others see the seconds alone."""
    deadline = table.get("free_unready_at")
    if not isinstance(deadline, int) or now_ms is None or table.get("state") == "playing":
        return Text()
    left = max(0, (deadline - now_ms + 999) // 1000)
    unready = [
        seat
        for seat in table.get("seats") or []
        if not seat.get("ready")
        and not seat.get("bot")
        and seat.get("client_id") != table.get("owner")
    ]
    if any(seat.get("client_id") == my_id for seat in unready):
        return Text(
            f"Start asked: press y within {left} s\nor your seat is freed.\n",
            Style(bold=True, color="bright_yellow"),
        )
    if unready:
        return Text(f"Seats not ready are freed\nin {left} s.\n", Style(color="bright_black"))
    return Text()


def all_ready_words(table: TableShown, my_id: int | None) -> Text:
    """In the lobby, once every other player is ready: the owner is told that their start is
    all that is awaited (the host never starts by itself), the others whom they wait for."""
    seats = table.get("seats") or []
    owner = table.get("owner")
    others = [seat for seat in seats if not seat.get("bot") and seat.get("client_id") != owner]
    if (
        table.get("state") != "lobby"
        or owner is None
        or not others
        or not all(s.get("ready") for s in others)
    ):
        return Text()
    if my_id == owner:
        return Text(
            "Everyone is ready:\ng starts the game.\n", Style(bold=True, color="bright_green")
        )
    names = [str(seat.get("name")) for seat in seats if seat.get("client_id") == owner]
    return Text(
        f"Everyone is ready: waiting for\n{fit(names[0] if names else 'the owner', 18)} to start.\n",
        Style(color="bright_black"),
    )


def row_cells(entry: TableSummary, players_width: int) -> tuple[str, ...]:
    """One table's row in the list, as words per column (COLUMNS)."""
    seats = entry.get("seats") or []
    who = ", ".join(str(s) for s in seats)
    if (
        time_limit_words(entry.get("turn_limit_ms")) == NO_LIMIT
    ):  # said before anyone sits down [D31]
        who = f"{NO_LIMIT}: {who}"
    return (
        str(entry.get("id")),
        str(entry.get("ruleset")),
        f"{len(seats)}/{entry.get('max_seats', '?')}",
        "paused" if entry.get("paused") else str(entry.get("state", "")),
        fit(who, players_width),
    )


def cell_text(label: str, words: str) -> Text:
    # Text cells, never str: DataTable reads a str cell as markup, and these come from the
    # host (names above all).
    return Text(words, Style(color="bright_black")) if label == "players" else Text(words)


class TableList(DataTable[Text]):
    """The host's tables; enter sits down at the chosen one (shown in the footer)."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Sit")
    ]  # (short: the lobby footer fits 80 columns)
    DEFAULT_CSS = """
    TableList { overflow-x: hidden; }
    """

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor":
            return kismet_app(self).client.table is None  # one table at a time
        return True


class LobbyScreen(OnKismetApp, Screen[None]):
    BINDINGS = [
        Binding("n", "new_table", "New table"),
        Binding("s", "join(True)", "Watch"),
        Binding("y", "ready(True)", "Ready"),
        Binding("y", "ready(False)", "Not ready"),  # (once you are ready: y takes it back)
        Binding("g", "start", "Start"),
        Binding("x", "remove", "Remove"),
        Binding("l", "leave", "Leave"),
        Binding("r", "refresh(True)", "Refresh"),
        # At a table its own keys fill the 80 columns' footer: r still refreshes, unshown.
        Binding("r", "refresh(False)", "Refresh", show=False),
        ChatInput.TALK,
        *MUTE,
        Binding("o", "open_network", "Invite"),
        Binding("h", "records", "Records"),
    ]
    DEFAULT_CSS = """
    LobbyScreen #tables-pane { width: 1fr; height: 1fr; }
    LobbyScreen #table-pane { width: 36; height: 1fr; border-left: solid $primary; padding: 0 1; }
    LobbyScreen .title { height: 1; text-style: bold; color: $accent; }
    LobbyScreen DataTable { height: 1fr; }
    LobbyScreen #lobbylog { height: 6; border-top: solid $primary; }
    LobbyScreen #lobby-buttons { height: 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[TableSummary] = []
        self.tables_drawn = True  # False: a newer list came while another screen was shown
        self.paused_shown: list[object] = []  # the paused tables offered in #mytable
        # The rows drawn, by key (the table's id as text): the summary each was drawn from and
        # its cells' words; and the players' column width they were drawn for.
        self.drawn: dict[str, tuple[TableSummary, tuple[str, ...]]] = {}
        self.drawn_width = 0

    def compose(self) -> ComposeResult:
        invitation = self.kismet.invitation
        yield StatusBar(lobby_where(invitation is not None and invitation.is_open))
        with Horizontal():
            with Vertical(id="tables-pane"):
                yield Static("Tables", classes="title")
                yield TableList(id="tables", cursor_type="row", zebra_stripes=False)
            with Vertical(id="table-pane"):
                yield Static(id="mytable")
        yield ActionBar(BUTTONS, id="lobby-buttons")
        yield MoveLog(id="lobbylog", wrap=True, markup=False, min_width=16)
        yield ChatInput()
        yield TooSmall()
        yield KeyFooter(same_keys_once=True)  # (redrawn only when its keys change)

    def on_mount(self) -> None:
        table = self.query_one("#tables", TableList)
        # Fixed widths: the table's own measuring waits for an idle moment a busy lobby may
        # not have, and then cut "playing" to "playi".
        for label, width in COLUMNS:
            table.add_column(label, width=width, key=label)
        table.focus()
        self.draw_my_table()
        self.set_interval(1.0, self.count_down)
        app = self.kismet
        for line in app.chat_lines:  # said before the lobby opened
            self.write_chat(line)
        if app.invite_words:  # (Windows: no `o`) how friends can play instead
            self.call_after_refresh(self.write_chat, Text(app.invite_words))
        self.watch(app, "chat_said", self.write_chat, init=False)
        self.watch(app, "connection", self.connection_changed, init=False)
        if app.connection.state == "connected":
            self.fetch_tables()

    def on_screen_resume(self) -> None:
        if not self.tables_drawn:
            self.draw_tables()
        self.draw_my_table()
        self.refresh_bindings()

    # ---- host messages: drawn only while the lobby is shown --------------------------------
    # (under a game each redraw would be for nothing: nearly all an idle player's CPU,
    # benchmarks/ui_idle_cpu.py; coming back draws what changed, on_screen_resume)
    def shown(self) -> bool:
        """The lobby is the screen on top (Textual's `is_current` counts a screen seen
        behind another too)."""
        return self.app.screen is self

    @on(TablesListed)
    def tables_listed(self, message: TablesListed) -> None:
        self.tables = message.tables
        self.tables_drawn = False
        if self.shown():
            self.draw_tables()
            paused = [entry.get("id") for entry in self.tables if entry.get("paused")]
            if paused != self.paused_shown:  # (a paused game of yours is offered there)
                self.draw_my_table()

    @on(TableChanged)
    def table_changed(self, message: TableChanged) -> None:
        if self.shown():
            self.draw_my_table()

    @on(HostMessage)
    def host_said(self, message: HostMessage) -> None:
        # The keys offered hang on the table we are at and the connection, never on the
        # table list: a push of the list rebuilds no footer (that cost a lobby a tenth of a
        # second per push while someone churned at a table).
        if self.shown() and not isinstance(message, TablesListed):
            self.refresh_bindings()

    def connection_changed(self, connection: ConnectionStatus) -> None:
        if connection.state == "connected":
            self.fetch_tables()  # at once: a new player sees the tables; then the host pushes them
        self.refresh_bindings()

    def write_chat(self, line: Text | None) -> None:
        if line is not None and self.is_mounted:
            self.query_one("#lobbylog", RichLog).write(line)

    @work(group="lobby", exclusive=True)
    async def fetch_tables(self) -> None:
        """Ask for the table list; it arrives as a `tables` message (tables_listed). A newer
        ask replaces one still waiting."""
        await send(self, self.client.list_tables)

    def draw_tables(self) -> None:
        """Draw the list as `self.tables` has it now, one row per table keyed by its id. Only
        what changed is drawn again: a row whose summary is the one drawn (the client keeps
        an unchanged summary's object) is left alone, one whose cells read the same (a new
        watcher, which the list does not show) too; a changed cell is updated in place, a
        table gone loses its row, a new one (listed last) gets one. Only a new width, or
        tables listed in another order than their rows, build the grid anew."""
        self.tables_drawn = True
        grid = self.query_one("#tables", TableList)
        chosen, row = self.chosen_row_key(), grid.cursor_row
        width = self.players_width()
        wanted = {str(entry.get("id")): entry for entry in self.tables}
        kept = [key for key in self.drawn if key in wanted]
        if width != self.drawn_width or kept + [
            key for key in wanted if key not in self.drawn
        ] != list(wanted):
            grid.clear()
            self.drawn, self.drawn_width = {}, width
        for key in [key for key in self.drawn if key not in wanted]:
            grid.remove_row(key)
            del self.drawn[key]
        for key, entry in wanted.items():
            drawn = self.drawn.get(key)
            if drawn is not None and drawn[0] is entry:
                continue
            cells = row_cells(entry, width)
            if drawn is None:
                grid.add_row(
                    *(cell_text(label, cell) for (label, _), cell in zip(COLUMNS, cells)), key=key
                )
            else:
                for (label, _), before, now in zip(COLUMNS, drawn[1], cells):
                    if before != now:
                        grid.update_cell(key, label, cell_text(label, now))
            self.drawn[key] = (entry, cells)
        if self.drawn:  # the cursor stays on its table, or near where it was
            target = (
                grid.get_row_index(chosen)
                if chosen in self.drawn
                else min(row, len(self.drawn) - 1)
            )
            if grid.cursor_row != target:
                grid.move_cursor(row=target)

    def chosen_row_key(self) -> str | None:
        """The key of the row under the cursor (a table's id as text), or None."""
        grid = self.query_one("#tables", TableList)
        if not grid.row_count:
            return None
        return grid.coordinate_to_cell_key(Coordinate(grid.cursor_row, 0)).row_key.value

    def players_width(self) -> int:
        """The room left for the players' names: the table's width less the other columns
        and two cells of padding per column."""
        grid = self.query_one("#tables", TableList)
        used = sum(width + 2 for _, width in COLUMNS[:-1]) + 2
        return max(12, (grid.size.width or 44) - used - 1)

    def on_resize(self) -> None:
        # With room to spare, the table pane grows so names show whole.
        wide = self.app.size.width >= 110
        self.query_one("#table-pane").styles.width = 52 if wide else 36
        self.draw_my_table()
        grid = self.query_one("#tables", TableList)
        column = grid.columns.get(ColumnKey("players"))
        if column is not None:
            column.width = self.players_width()
        self.draw_tables()

    def my_table(self) -> TableShown | None:
        table = self.client.table
        if table is None or table.get("state") == "closed":
            return None
        return table

    def my_id(self) -> int | None:
        return self.client.client_id

    def draw_my_table(self) -> None:
        wide = self.app.size.width >= 110
        paused = self.paused_shown = [
            entry.get("id") for entry in self.tables if entry.get("paused")
        ]
        self.query_one("#mytable", Static).update(
            render_my_table(
                self.my_table(),
                self.my_id(),
                34 if wide else 18,
                self.client.host_time_ms(),
                paused,
            )
        )

    def count_down(self) -> None:
        """Once a second while the owner's start waits for the unready: the seconds go down."""
        table = self.my_table()
        if table is not None and table.get("free_unready_at") is not None:
            self.draw_my_table()

    def chosen_table_id(self) -> int | None:
        drawn = self.drawn.get(self.chosen_row_key() or "")
        return drawn[0].get("id") if drawn is not None else None

    # ---- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        table = self.my_table()
        if action in ("new_table", "join"):
            return table is None
        if action == "talk":  # chat is heard at a table only
            return table is not None and not any(c.is_open for c in self.query(ChatInput))
        if action == "leave":
            return table is not None
        if action == "refresh":
            return parameters == (table is None,)
        if action in ("mute_watchers", "unmute_watchers"):
            return mute_offered(action, table, self.my_id())
        if action == "open_network":
            # Only `kismet` alone has a host of its own to open (o opens, o again closes).
            return self.kismet.invitation is not None
        if action not in ("ready", "start", "remove"):
            return True
        if table is None or table.get("state") == "playing":
            return False
        owner = table.get("owner") == self.my_id()
        if action == "ready":
            mine = next(
                (s for s in table.get("seats") or [] if s.get("client_id") == self.my_id()), None
            )
            return not owner and mine is not None and parameters == (not mine.get("ready", False),)
        if action == "start":
            return owner
        return owner and bool(removable(table, self.my_id()))

    def action_new_table(self) -> None:
        from .new_table import NewTableScreen

        self.app.push_screen(NewTableScreen())

    async def action_join(self, spectator: bool) -> None:
        table_id = self.chosen_table_id()
        if table_id is None:
            self.post_message(RefusalToShow("There is no table to join yet: press n to make one."))
            return
        await send(self, partial(self.client.join_table, table_id, spectator))

    async def on_data_table_row_selected(self, event: TableList.RowSelected) -> None:
        # The focused table takes enter for itself: selecting a row means sitting down there.
        # (Enter is no key at a table; a click on the chosen row still selects it: say why.)
        event.stop()
        table = self.my_table()
        if table is None:
            await self.action_join(False)
        else:
            self.post_message(
                RefusalToShow(
                    f"You are at table {table.get('id')}: leave it (l) to sit at another."
                )
            )

    async def action_ready(self, ready: bool) -> None:
        await send(self, partial(self.client.ready, ready))

    async def action_start(self) -> None:
        await send(self, self.client.start)

    def action_remove(self) -> None:
        """Between games the owner picks a player to remove (such as a stranger who sat down
        and never readied): screens/remove.py asks whom."""
        table = self.my_table()
        members = removable(table, self.my_id()) if table else []
        if members:
            self.app.push_screen(RemoveScreen(members), self.removal_chosen)

    def removal_chosen(self, client_id: int | None) -> None:
        if client_id is not None:
            self.remove_member(client_id)

    @work(group="remove")
    async def remove_member(self, client_id: int) -> None:
        table = self.my_table()
        seat = next(
            (
                index
                for index, seat in enumerate(table.get("seats") or [] if table else [])
                if seat.get("client_id") == client_id
            ),
            None,
        )
        if seat is None:
            self.post_message(RefusalToShow("That player has left the table already."))
            return
        await send(self, partial(self.client.remove, seat))

    async def action_leave(self) -> None:
        await send(self, self.client.leave)
        self.draw_my_table()
        # No message from the table tells a player who left it: the keys (and buttons) of
        # the lobby away from a table are offered now.
        self.refresh_bindings()

    def action_refresh(self, shown: bool = True) -> None:
        if self.kismet.connection.state == "connected":
            self.fetch_tables()

    def action_records(self) -> None:
        from .records import RecordsScreen

        self.app.push_screen(
            RecordsScreen(ruleset=self.client.table["ruleset"] if self.client.table else "dice")
        )

    async def action_open_network(self) -> None:
        """Invite: ask first (kismet_tui/screens/invite.py), then show the lines to share in
        the lobby's log; while open the top line says so, and `o` closes it again."""
        invitation = self.kismet.invitation
        if invitation is None:
            return  # the key is not shown then (check_action)
        log = self.query_one("#lobbylog", RichLog)
        if invitation.is_open:
            await invitation.close()
            words = (
                "Invite closed: nobody new can come in; friends who played over ssh were "
                "disconnected (their seats wait as for any dropped player)."
            )
            log.write(Text(words))
            self.kismet.notify(words, timeout=10, markup=False)
            self.show_where()
            return
        from .invite import InviteScreen

        def opened(lines: list[str] | None) -> None:
            self.show_where()
            if not lines:
                return
            for line in lines:
                log.write(Text(line))
            self.kismet.notify(
                "Invite open: the lines to share are in the lobby; o closes it.",
                timeout=10,
                markup=False,
            )

        self.app.push_screen(InviteScreen(invitation), opened)

    def show_where(self) -> None:
        invitation = self.kismet.invitation
        self.query_one(StatusBar).set_where(
            lobby_where(invitation is not None and invitation.is_open)
        )

    def action_talk(self) -> None:
        self.query_one(ChatInput).open()

    async def action_mute_watchers(self) -> None:
        await send(self, partial(self.client.mute_watchers, True))

    async def action_unmute_watchers(self) -> None:
        await send(self, partial(self.client.mute_watchers, False))
