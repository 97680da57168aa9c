"""Frames over asyncio streams: a 4-byte big-endian length, then one msgpack map.

A frame longer than the reader's limit is refused from its length alone, before any of its
body is read, so a peer cannot make the other side buffer more than the limit. Unpacking is
strict: text must be UTF-8 (`raw=False`), map keys must be strings, no extension types, and
containers are bounded by the limits in `protocol.limits`.

Two ways to read: `read_frame` awaits one frame from a StreamReader (the client library);
`FrameReader` cuts frames out of bytes as an asyncio.Protocol receives them (the host, where
a reader task per connection cost a wake-up and a turn of the loop per message).
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Mapping
from typing import NoReturn

import msgpack

from . import limits
from .errors import ProtocolError
from .packing import pack
from .plain import Plain

_LENGTH = struct.Struct(">I")


class FrameLimits:
    """How much one side accepts from the other."""

    __slots__ = ("max_frame", "max_array", "max_map", "max_str", "max_bin")

    def __init__(self, max_frame: int, max_array: int, max_map: int, max_str: int, max_bin: int):
        self.max_frame = max_frame
        self.max_array = max_array
        self.max_map = max_map
        self.max_str = max_str
        self.max_bin = max_bin


# What the host accepts from a client, and what a client accepts from a host.
FROM_CLIENT = FrameLimits(
    limits.MAX_FRAME,
    limits.MAX_ARRAY_LEN,
    limits.MAX_MAP_LEN,
    limits.MAX_STR_LEN,
    limits.MAX_BIN_LEN,
)
FROM_HOST = FrameLimits(
    limits.MAX_HOST_FRAME,
    limits.MAX_HOST_ARRAY_LEN,
    limits.MAX_HOST_MAP_LEN,
    limits.MAX_HOST_FRAME,
    limits.MAX_HOST_FRAME,
)


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError("extension types are not part of the protocol")


def encode(message: Mapping[str, object], max_frame: int = limits.MAX_HOST_FRAME) -> bytes:
    """One frame: length prefix + msgpack body."""
    body = pack(message)
    if len(body) > max_frame:
        raise ValueError(f"frame of {len(body)} bytes is over the {max_frame} byte limit")
    return _LENGTH.pack(len(body)) + body


def map_entries(message: Mapping[str, object]) -> bytes:
    """A map's entries packed, in order, without the map's own header: frames that share
    fields (an event to the log, to every member, to its sender with `re`) pack them once,
    and `frame_of` puts each together."""
    body = pack(message)
    return body[len(_map_header(len(message))) :]


def frame_of(count: int, *entries: bytes, max_frame: int | None = limits.MAX_HOST_FRAME) -> bytes:
    """The frame of a map of `count` entries packed as `entries` (by map_entries), in order:
    the bytes encode() gives for that map. `max_frame` None: no limit (a log record)."""
    body = _map_header(count) + b"".join(entries)
    if max_frame is not None and len(body) > max_frame:
        raise ValueError(f"frame of {len(body)} bytes is over the {max_frame} byte limit")
    return _LENGTH.pack(len(body)) + body


def _map_header(count: int) -> bytes:
    """msgpack's header of a map of `count` entries (fixmap, map 16, map 32)."""
    if count < 16:
        return bytes((0x80 | count,))
    if count < 0x10000:
        return b"\xde" + count.to_bytes(2, "big")
    return b"\xdf" + count.to_bytes(4, "big")


def decode_body(body: bytes, lim: FrameLimits = FROM_CLIENT) -> Plain:
    """The map in one frame's body, or ProtocolError('bad_frame')."""
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=lim.max_str,
            max_bin_len=lim.max_bin,
            max_array_len=lim.max_array,
            max_map_len=lim.max_map,
            max_ext_len=0,
            ext_hook=_no_ext,
        )
    except Exception as exc:  # msgpack raises many kinds: all mean "unreadable"
        refusal = _unreadable(exc)
        if refusal.code == "bad_message":  # well-formed but over a limit: answer its request
            refusal.re = _request_id_of(body, lim)
        raise refusal from None
    if not isinstance(value, dict):
        raise ProtocolError("bad_frame", "A message must be a map with a type.")
    return value


def _request_id_of(body: bytes, lim: FrameLimits) -> int | None:
    """The `id` of a body refused for a container limit, read again with the frame's size as
    the only bound (a frame is at most lim.max_frame bytes, so this is bounded too; msgpack
    bounds the nesting itself), so the refusal answers the request it refuses."""
    from .requests import request_id  # (requests is the parser above framing)

    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=False,
            max_str_len=lim.max_frame,
            max_bin_len=lim.max_frame,
            max_array_len=lim.max_frame,
            max_map_len=lim.max_frame,
            max_ext_len=0,
            ext_hook=_no_ext,
        )
    except Exception:
        return None
    return request_id(value)


def _unreadable(exc: Exception) -> ProtocolError:
    """Words for a body msgpack refused: a limit it met is said as such (bad_message), the rest
    is unreadable (bad_frame)."""
    if isinstance(exc, msgpack.StackError):
        return ProtocolError("bad_message", "That message is nested too deeply to read.")
    said = str(exc)
    if "exceeds max_array_len" in said:
        return ProtocolError("bad_message", "That message holds a list longer than the host takes.")
    if "exceeds max_map_len" in said:
        return ProtocolError(
            "bad_message", "That message holds a map with more entries than the host takes."
        )
    if "exceeds max_bin_len" in said:
        return ProtocolError(
            "bad_message", "That message holds more binary data than the host takes."
        )
    return ProtocolError("bad_frame", f"That message could not be read ({type(exc).__name__}).")


async def read_frame(reader: asyncio.StreamReader, lim: FrameLimits = FROM_CLIENT) -> Plain:
    """Read one frame. Raises asyncio.IncompleteReadError at end of stream, ProtocolError
    ('too_big', fatal) for an oversized length, ProtocolError('bad_frame') for a bad body."""
    head = await reader.readexactly(limits.HEADER_BYTES)
    (length,) = _LENGTH.unpack(head)
    if length > lim.max_frame:
        # The stream cannot be resynchronised without reading the body: close it.
        raise ProtocolError(
            "too_big", f"That message is {length} bytes; the limit is {lim.max_frame}.", fatal=True
        )
    body = await reader.readexactly(length)
    return decode_body(body, lim)


class FrameReader:
    """Frames cut out of received bytes, with the same checks and errors as `read_frame`."""

    __slots__ = ("limits", "_buffer")

    def __init__(self, lim: FrameLimits = FROM_CLIENT):
        self.limits = lim
        self._buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def buffered(self) -> bool:
        """Whether any bytes wait (a whole frame, or the start of one)."""
        return bool(self._buffer)

    def next_message(self) -> Plain | None:
        """The next whole message, or None until one has arrived in full. Raises
        ProtocolError('too_big', fatal) from an oversized length alone, and
        ProtocolError('bad_frame') for an unreadable body (that frame is skipped)."""
        buffer = self._buffer
        if len(buffer) < limits.HEADER_BYTES:
            return None
        (length,) = _LENGTH.unpack_from(buffer)
        if length > self.limits.max_frame:
            raise ProtocolError(
                "too_big",
                f"That message is {length} bytes; the limit is {self.limits.max_frame}.",
                fatal=True,
            )
        end = limits.HEADER_BYTES + length
        if len(buffer) < end:
            return None
        body = bytes(buffer[limits.HEADER_BYTES : end])
        del buffer[:end]
        return decode_body(body, self.limits)
