"""The network side of the app: the client library (no Textual)."""

from .client import (
    CLOSED,
    CONNECTED,
    CONNECTING,
    RECONNECTING,
    ActionRefused,
    Client,
    ConnectionLost,
    RequestError,
)

__all__ = [
    "ActionRefused",
    "CLOSED",
    "CONNECTED",
    "CONNECTING",
    "Client",
    "ConnectionLost",
    "RECONNECTING",
    "RequestError",
]
