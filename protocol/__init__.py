"""The wire between `kismet-host` and its clients: framing, messages, limits, errors, logs.

Depends on msgpack only (`protocol.logsign`, imported on its own, also on cryptography).
docs/protocol.md is the human-readable form of this package.
"""

from .errors import ERRORS, ProtocolError
from .framing import FROM_CLIENT, FROM_HOST, decode_body, encode, read_frame
from .gamelog import LogError, read_log, read_log_full
from .limits import PROTOCOL_VERSION
from .requests import parse_client, request_id
from .text import clean_chat, clean_name

__all__ = [
    "ERRORS",
    "FROM_CLIENT",
    "FROM_HOST",
    "LogError",
    "PROTOCOL_VERSION",
    "ProtocolError",
    "clean_chat",
    "clean_name",
    "decode_body",
    "encode",
    "parse_client",
    "read_frame",
    "read_log",
    "read_log_full",
    "request_id",
]
