"""Where a screen's game comes from: the one interface the app and its screens read and call.

Two things stand behind it: the connection to a host (`kismet_tui.net.client.Client`) and a
saved game played back (`kismet_tui.replay.ReplaySource`). Screens read the replica
(`game`, `header`, `seat`, the table) and call the requests by method; a replay is not
`live`, and every request it is asked for raises with words saying why nothing can be sent.
mypy checks that both sources fit (KismetApp takes a GameSource; the replay app passes its
ReplaySource).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Protocol

from kismet_tui.rules import Game
from kismet_tui.rules.base import Plain
from kismet_tui.rules.game_types import Event, Header
from kismet_tui.rules.verify import Verification
from protocol.host_messages import EventMessage, RecordsMessage, TableShown, TableSummary

from .net.published import Published

# The notes the replica made for one event (each game declares them: rules/*_types.py).
EventNotes = Sequence[Mapping[str, Any]]


class GameSource(Protocol):
    # "connecting", "connected", "reconnecting", "closed" (a host), or "replay".
    state: str
    client_id: int | None  # who we are at the host (None in a replay)
    table: TableShown | None  # the host's last `table` message for the table we are at
    header: Header | None  # the game's header: seats' names, options, commit
    game: Game | None  # the replica, which every screen draws from
    seat: int | None  # our seat in it, or None when watching
    verification: Verification | None  # the finished game's fair-chance check, if made

    @property
    def live(self) -> bool:
        """True when requests reach a host; False for a replay."""
        ...

    def applied_events(self) -> list[Event]:
        """The stamped events the replica has applied, in order."""
        ...

    def applied_notes(self) -> list[EventNotes]:
        """The notes the replica made for each of those events (the move log's words)."""
        ...

    def host_time_ms(self) -> int:
        """The host's clock (a replay's virtual one): deadlines in views are host times."""
        ...

    def messages(self) -> AsyncIterator[Published]:
        """Every message from the host, after the replica took it in."""
        ...

    # ---- requests: each raises with `words` when refused ------------------------------------
    def act_nowait(self, action: Mapping[str, Any]) -> None: ...
    async def act(self, action: Mapping[str, Any]) -> EventMessage: ...
    async def prelay(self, cards: list[int]) -> EventMessage: ...
    async def chat(self, text: str) -> None: ...
    async def mute_watchers(self, muted: bool = True) -> None: ...
    async def list_tables(self) -> list[TableSummary]: ...
    async def create_table(
        self, ruleset: str, options: Plain | None = None, bots: int | list[str] = 0
    ) -> TableShown | None: ...
    async def join_table(self, table_id: int, spectator: bool = False) -> TableShown | None: ...
    async def ready(self, flag: bool = True) -> None: ...
    async def start(self) -> None: ...
    async def remove(self, seat: int) -> None: ...
    def here_nowait(self) -> None: ...
    async def hand_to_bot(self, seat: int) -> None: ...
    async def leave(self) -> None: ...
    async def records(
        self, view: str, ruleset: str | None = None, player: str | None = None, page: int = 0
    ) -> RecordsMessage: ...
