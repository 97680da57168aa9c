"""Textual messages the network worker posts to the app.

The worker (KismetApp.read_host) is the only code that awaits the network; it turns each thing
the host says, and each change of the connection, into one of these messages, so that screens
never block on a socket. The background build of the optimal dice table reports the same way.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class HostMessage(Message):
    """One message from the host (a plain dict with a "type"), after the client has already
    applied it to its replica (client.game, client.table, client.seat)."""

    def __init__(self, msg: dict[str, Any]) -> None:
        super().__init__()
        self.msg = msg


class ConnectionChanged(Message):
    """The connection to the host changed: state is a short word ("connecting", "connected",
    "reconnecting", "closed"), detail a sentence for the status line."""

    def __init__(self, state: str, detail: str = "") -> None:
        super().__init__()
        self.state = state
        self.detail = detail


class BuildChanged(Message):
    """The optimal dice table's background build moved on (kismet_tui.solver.background
    says so from the build's own thread); the app reads its words again."""
