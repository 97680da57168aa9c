"""The game log file: a game's header and its stamped events, as the host writes them.

A log is a sequence of frames in the wire's framing (4-byte big-endian length + one msgpack
map), each a record with a `kind`:

- first `{"kind": "header", "header": {...}, "table": id}`: version 2 headers hold
  {ruleset, seats, options, t0, commit, entropy, chance}; version 1 headers held `seed`
- then one `{"kind": "event", "seq", "t", "seat", "action", "chance"?}` per stamped event,
  seq 1, 2, ... (`chance`: the values the event drew, absent when it drew none)
- last, once the game is over, `{"kind": "end", "result": {...}, "server_seed"?}` (version 2
  reveals the 32-byte seed there).

A host killed mid-write may leave a torn last frame; readers ignore it (every event a client
ever received was written and flushed before it was sent). `read_log` is pure: it needs only
msgpack, so the UI's replay viewer can use it without the host.
"""

from __future__ import annotations

import struct
import os
from collections.abc import Iterator
from typing import BinaryIO

import msgpack

from . import limits
from .plain import Plain

_LENGTH = struct.Struct(">I")
MAX_RECORD = limits.MAX_HOST_FRAME


class LogError(ValueError):
    """The file is not a Kismet game log."""


def record_bytes(record: Plain) -> bytes:
    body: bytes = msgpack.packb(record, use_bin_type=True)
    return _LENGTH.pack(len(body)) + body


def iter_records(stream: BinaryIO) -> Iterator[Plain]:
    """Each complete record in order; a torn tail ends the iteration quietly."""
    while True:
        head = stream.read(4)
        if len(head) < 4:
            return
        (length,) = _LENGTH.unpack(head)
        if length > MAX_RECORD:
            raise LogError(f"a record of {length} bytes is larger than any the host writes")
        body = stream.read(length)
        if len(body) < length:
            return
        try:
            record = msgpack.unpackb(body, raw=False, strict_map_key=True, max_ext_len=0)
        except Exception as exc:
            raise LogError(f"unreadable record: {exc}") from None
        if not isinstance(record, dict):
            raise LogError("a record must be a map")
        yield record


def read_log(path: str | os.PathLike[str]) -> tuple[Plain, list[Plain]]:
    """(header, events) of a log file. Events are {seq, t, seat, action} in sequence order,
    ready for `kismet_tui.rules.replay(header, events)`."""
    header, events, _end = read_log_full(path)
    return header, events


def read_log_full(path: str | os.PathLike[str]) -> tuple[Plain, list[Plain], Plain | None]:
    """(header, events, end): `end` is the end record, or None if the game was unfinished."""
    with open(path, "rb") as stream:
        records = iter_records(stream)
        first = next(records, None)
        if first is None or first.get("kind") != "header" or not isinstance(first.get("header"), dict):
            raise LogError(f"{path} does not start with a game header")
        events: list[Plain] = []
        end = None
        for record in records:
            kind = record.get("kind")
            if kind == "event":
                if record.get("seq") != len(events) + 1:
                    raise LogError(f"event {record.get('seq')} out of order (expected {len(events) + 1})")
                event = {key: record[key] for key in ("seq", "t", "seat", "action")}
                if "chance" in record:
                    event["chance"] = record["chance"]
                events.append(event)
            elif kind == "end":
                end = record
            else:
                raise LogError(f"unknown record kind {kind!r}")
    return first["header"], events, end
