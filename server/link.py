"""What the host's jobs and tables need of a client's connection, as a typed Protocol.

The concrete `Connection` (server/connection.py) hands each message to the host, which hands
it to the jobs; typing the jobs' and the tables' side against this Protocol, not against the
class, keeps them from importing the connection module back.
"""

from __future__ import annotations

from typing import Protocol

from protocol.host_messages import ToClient

from .doors.door_pass import DoorPass


class Link(Protocol):
    """One client's connection, as a table and a job see it."""

    @property
    def closed(self) -> bool: ...

    @property
    def opened(self) -> float: ...  # its monotonic time of opening

    @property
    def last_heard(self) -> float: ...  # when its latest frame was read (monotonic)

    @property
    def door(self) -> DoorPass | None: ...

    def send(self, message: ToClient) -> None: ...

    def send_bytes(self, frame: bytes) -> None: ...

    def send_chat(self, frame: bytes) -> None: ...  # skipped (counted) while it is behind

    def ok(self, re: int | None) -> None: ...

    def error(self, code: str, words: str | None = None, re: int | None = None) -> None: ...

    def close(self) -> None: ...
