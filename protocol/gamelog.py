"""The game log file: a game's header and its stamped events, as the host writes them.

A log is a sequence of frames in the wire's framing (4-byte big-endian length + one msgpack
map), each a record with a `kind`:

- first `{"kind": "header", "header": {...}, "table": id, "host_key"?}`: version 2 headers
  hold {ruleset, seats, options, t0, commit, entropy, chance}; version 1 headers held
  `seed`; `host_key` (from hosts since issue 28): the 32-byte public key that signs the game
- then one `{"kind": "event", "seq", "t", "seat", "action", "chance"?}` per stamped event,
  seq 1, 2, ... (`chance`: the values the event drew, absent when it drew none)
- then, once the game is over, `{"kind": "end", "result": {...}, "server_seed"?, "digest"?,
  "marks"?}` (version 2 reveals the 32-byte seed there; `digest`: the engine's digest at the
  end; `marks`: after every 8th event, the first 16 bytes of SHA-256 of the file's bytes
  through that event, so a checker can say where changed bytes begin)
- last, from a signing host, `{"kind": "signature", "key", "signature"}` over every byte
  before it (protocol/logsign.py).

A host killed mid-write may leave a torn last frame; readers ignore it (every event a client
ever received was written and flushed before it was sent). `read_log` is pure: it needs only
msgpack, so the UI's replay viewer can use it without the host.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import BinaryIO

import msgpack

from . import limits
from .packing import pack
from .plain import Plain

_LENGTH = struct.Struct(">I")
MAX_RECORD = limits.MAX_HOST_FRAME
MARK_EVERY = 8  # the end record's `marks`: one after every 8th event
MARK_BYTES = 16


def prefix_mark(prefix_digest: bytes) -> bytes:
    """A mark: the first 16 bytes of SHA-256 of the file from its start through one event."""
    return prefix_digest[:MARK_BYTES]


class LogError(ValueError):
    """The file is not a Kismet game log."""


def record_bytes(record: Mapping[str, object]) -> bytes:
    body = pack(record)
    return _LENGTH.pack(len(body)) + body


def iter_records(stream: BinaryIO) -> Iterator[Plain]:
    """Each complete record in order; a torn tail ends the iteration quietly."""
    for _frame, record in iter_frames(stream):
        yield record


def iter_frames(stream: BinaryIO) -> Iterator[tuple[bytes, Plain]]:
    """(the frame's bytes as in the file, its record) for each complete record in order."""
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
        yield head + body, record


def read_log(path: str | os.PathLike[str]) -> tuple[Plain, list[Plain]]:
    """(header, events) of a log file. Events are {seq, t, seat, action} in sequence order,
    ready for `kismet_tui.rules.replay(header, events)`."""
    header, events, _end = read_log_full(path)
    return header, events


@dataclass
class GameLog:
    """A whole log file as read. `signed_digest`: SHA-256 of the bytes before the signature
    record (of the whole file when there is none); `after_signature`: records that follow it
    (a host writes none); `marks`: what the end record's marks should be, from these bytes."""

    header: Plain
    host_key: object = None  # the header record's `host_key` as written (None: none)
    events: list[Plain] = field(default_factory=list)
    end: Plain | None = None
    signature: Plain | None = None
    signed_digest: bytes = b""
    after_signature: int = 0
    marks: list[bytes] = field(default_factory=list)  # as the file's bytes give them
    torn: int = (
        0  # bytes after the last whole record: a file cut short (or a host killed mid-write)
    )


def read_log_full(path: str | os.PathLike[str]) -> tuple[Plain, list[Plain], Plain | None]:
    """(header, events, end): `end` is the end record, or None if the game was unfinished."""
    log = read_game_log(path)
    return log.header, log.events, log.end


def read_game_log(path: str | os.PathLike[str]) -> GameLog:
    """Every record of a log file, and the digest its signature covers."""
    hasher = hashlib.sha256()
    with open(path, "rb") as stream:
        frames = iter_frames(stream)
        first_frame, first = next(frames, (b"", None))
        if (
            first is None
            or first.get("kind") != "header"
            or not isinstance(first.get("header"), dict)
        ):
            raise LogError(f"{path} does not start with a game header")
        hasher.update(first_frame)
        log = GameLog(first["header"], first.get("host_key"))
        whole = len(first_frame)
        for frame, record in frames:
            whole += len(frame)
            kind = record.get("kind")
            if log.signature is not None:
                log.after_signature += 1
                continue
            if kind == "signature":
                log.signature = record
                continue
            hasher.update(frame)
            if kind == "event":
                if record.get("seq") != len(log.events) + 1:
                    raise LogError(
                        f"event {record.get('seq')} out of order (expected {len(log.events) + 1})"
                    )
                event = {key: record[key] for key in ("seq", "t", "seat", "action")}
                if "chance" in record:
                    event["chance"] = record["chance"]
                log.events.append(event)
                if event["seq"] % MARK_EVERY == 0:
                    log.marks.append(prefix_mark(hasher.digest()))
            elif kind == "end":
                log.end = record
            else:
                raise LogError(f"unknown record kind {kind!r}")
        # iter_frames stops quietly at a torn tail: what it read and did not yield is it.
        log.torn = stream.tell() - whole
    log.signed_digest = hasher.digest()
    return log
