"""The wire's pure parts: framing, unpacking limits, message validation, text, the log file."""

import asyncio
import struct

import msgpack
import pytest

from protocol import (
    ProtocolError,
    clean_chat,
    clean_name,
    decode_body,
    encode,
    limits,
    parse_client,
    read_frame,
    read_log,
)
from protocol.framing import FROM_CLIENT
from protocol.gamelog import LogError, read_log_full, record_bytes


def reader_with(data: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=limits.MAX_FRAME + 16)
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    return reader


async def test_frame_round_trip():
    frame = encode({"type": "ping", "id": 7})
    assert struct.unpack(">I", frame[:4])[0] == len(frame) - 4
    assert await read_frame(reader_with(frame)) == {"type": "ping", "id": 7}


async def test_oversized_length_is_refused_before_the_body_arrives():
    # Only the 4-byte header is fed, and no EOF: reading the body would block forever.
    reader = reader_with(struct.pack(">I", limits.MAX_FRAME + 1), eof=False)
    with pytest.raises(ProtocolError) as err:
        await asyncio.wait_for(read_frame(reader, FROM_CLIENT), 1)
    assert err.value.code == "too_big" and err.value.fatal


async def test_frame_of_exactly_the_limit_is_read():
    body = msgpack.packb({"type": "chat", "text": "x" * 10})
    body = body + b"\xc0" * 0
    assert await read_frame(reader_with(struct.pack(">I", len(body)) + body)) == {
        "type": "chat",
        "text": "x" * 10,
    }


@pytest.mark.parametrize(
    "body, why",
    [
        (b"\xc1", "reserved byte"),
        (msgpack.packb([1, 2, 3]), "not a map"),
        (msgpack.packb({1: "int key"}), "int map key"),
        (msgpack.packb(msgpack.ExtType(5, b"abc")), "extension type"),
        (msgpack.packb({"type": "x"}) + b"\x01", "trailing bytes"),
        (msgpack.packb({"a": b"\xff\xfe"}, use_bin_type=False), "raw bytes that are not UTF-8"),
    ],
)
def test_unreadable_bodies_are_bad_frames(body, why):
    with pytest.raises(ProtocolError) as err:
        decode_body(body)
    assert err.value.code == "bad_frame", why


@pytest.mark.parametrize(
    "body, words",
    [
        (msgpack.packb({"a": list(range(limits.MAX_ARRAY_LEN + 1))}), "a list longer than"),
        (
            msgpack.packb({"a": {str(i): i for i in range(limits.MAX_MAP_LEN + 1)}}),
            "a map with more",
        ),
        (b"\x81\xa1a" + b"\x91" * 3000 + b"\xc0", "nested too deeply"),
    ],
)
def test_bodies_over_a_limit_are_bad_messages_that_say_which(body, words):
    with pytest.raises(ProtocolError) as err:
        decode_body(body)
    assert err.value.code == "bad_message" and words in err.value.words


@pytest.mark.parametrize(
    "message, words",
    [
        ({"type": "hello", "version": "1", "name": "Ana"}, "'version' must be a whole number"),
        ({"type": "hello", "version": 1}, "needs 'name'"),
        ({"type": "join_table", "table": True}, "'table' must be a whole number"),
        ({"type": "act", "action": {"type": "roll", "hold": [0.5]}}, "holds a fraction"),
        ({"type": "act", "action": {"type": "roll", b"hold": [1]}}, "only text keys"),
        (
            {"type": "hello", "version": 1, "name": "x" * 97},
            "A name is at most 24 characters; that one has 97.",
        ),
        ({"type": "hello", "version": 2, "name": "Ana", "door": "p" * 65}, "'door'"),
        ({"type": "hello", "version": 2, "name": "Ana", "door": 7}, "'door'"),
        ({"type": "act", "action": {"hold": []}}, "must be a map with a 'type'"),
        (
            {"type": "chat", "text": "x" * (limits.MAX_CHAT + 1)},
            "A chat line is at most 300 characters",
        ),
        ({"type": "ping", "id": -1}, "'id' must be a whole number"),
        ({"type": "ping", "id": None}, "'id' must be a whole number"),
        ({"type": "launch_missiles"}, "does not know the message type 'launch_missiles'"),
        ({"type": 3}, "must say its type"),
        ({"type": "create_table", "ruleset": "dice", "bots": 99}, "'bots' must be between"),
    ],
)
def test_malformed_messages_are_refused_with_words(message, words):
    with pytest.raises(ProtocolError) as err:
        parse_client(message)
    assert err.value.code == "bad_message"
    assert words in err.value.words


def test_parse_fills_defaults_and_keeps_the_id():
    parsed = parse_client({"type": "join_table", "table": 4, "id": 9, "extra": "ignored"})
    assert parsed == {"type": "join_table", "id": 9, "table": 4, "spectator": False}
    assert parse_client({"type": "create_table", "ruleset": "dice", "bots": 2})["bots"] == [
        "greedy",
        "greedy",
    ]


def test_each_parse_fills_defaults_of_its_own_and_no_id_it_was_not_sent():
    first = parse_client({"type": "create_table", "ruleset": "dice"})
    assert first == {"type": "create_table", "ruleset": "dice", "options": {}, "bots": []}
    first["bots"].append("hard")
    first["options"]["turn_limit_ms"] = 0
    again = parse_client({"type": "create_table", "ruleset": "dice", "options": None})
    assert again["bots"] == [] and again["options"] == {}


def test_names_and_chat_keep_what_was_typed_and_lose_whole_escape_sequences():
    assert clean_name("\x1b[31mAna\x07\u202e") == "Ana"  # the whole CSI, not only ESC
    assert clean_name("\x1b]0;pwned\x07Bo") == "Bo"  # an OSC title, to its BEL
    assert clean_name("\x1b]8;;http://x\x1b\\Cy") == "Cy"  # an OSC ended by ST
    assert clean_name("\x9b2JDi") == "Di"  # the 8-bit CSI
    assert clean_name("[bold red]Bo[/] <3") == "[bold red]Bo[/] <3"  # brackets stay as typed
    assert clean_name("Zoë Ñandú 李") == "Zoë Ñandú 李"
    assert clean_name("👩\u200d👩\u200d👧 ok") == "👩\u200d👩\u200d👧 ok"  # a joined emoji stays
    assert clean_name("A\u200dB") == "AB"  # a joiner between letters goes
    assert clean_name("e" + "\u0301" * 40) == "\u00e9" + "\u0301" * 3  # marks pile up no higher
    assert clean_name("a\u200b\u2066b\ufeff") == "ab"  # zero-width and bidi go
    assert clean_name("   \t ") == "Player"
    assert len(clean_name("x" * 90)) == limits.MAX_NAME
    assert clean_chat("hi\nthere\r\n  you") == "hi there you"
    assert (
        parse_client({"type": "chat", "text": "[link=x]click[/link]"})["text"]
        == "[link=x]click[/link]"
    )


def test_log_reader_ignores_a_torn_tail(tmp_path):
    path = tmp_path / "g.kismet"
    header = {
        "ruleset": "dice",
        "seats": ["A"],
        "seed": b"0123456789abcdef",
        "options": {},
        "t0": 5,
    }
    events = [
        {"seq": 1, "t": 6, "seat": 0, "action": {"type": "roll", "hold": []}},
        {"seq": 2, "t": 7, "seat": 0, "action": {"type": "score", "box": "aces"}},
    ]
    data = record_bytes({"kind": "header", "header": header, "table": 1})
    data += b"".join(record_bytes({"kind": "event", **e}) for e in events)
    path.write_bytes(data + record_bytes({"kind": "event", **events[0]})[:-3])
    assert read_log(path) == (header, events)
    header2, events2, end = read_log_full(path)
    assert end is None


def test_log_reader_refuses_other_files(tmp_path):
    path = tmp_path / "x"
    path.write_bytes(record_bytes({"kind": "event", "seq": 1}))
    with pytest.raises(LogError):
        read_log(path)


def test_the_kept_packer_packs_as_packb_does_and_a_failed_pack_leaves_nothing_behind():
    """protocol/packing.py keeps one Packer per thread: its bytes are packb's, and a value it
    cannot pack (refused with packb's error) leaves nothing in it for the next frame."""
    import threading

    from protocol.framing import encode
    from protocol.packing import pack

    values = [{"type": "event", "seq": 3, "action": {"type": "roll", "hold": [0, 4]}}, b"\x00\xff"]
    values += [{"big": "x" * 70_000}, [2**63, -(2**63)], None, {"nested": [[{"a": True}]]}]
    for value in values:
        assert pack(value) == msgpack.packb(value, use_bin_type=True)
    for bad in ({"a": [1, object()]}, {"a": 2**64}):
        with pytest.raises((TypeError, OverflowError)):
            pack(bad)
        body = msgpack.packb({"type": "pong"})
        assert encode({"type": "pong"}) == struct.pack(">I", len(body)) + body
    other: list[bytes] = []
    thread = threading.Thread(target=lambda: other.append(pack({"from": "a thread"})))
    thread.start()
    thread.join()
    assert other == [msgpack.packb({"from": "a thread"})]
