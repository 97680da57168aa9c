"""protocol.framing.FrameReader: frames cut out of bytes however they arrive, with the
same refusals as read_frame (the host reads through it)."""

import struct

import pytest

from protocol import limits
from protocol.errors import ProtocolError
from protocol.framing import FROM_CLIENT, FrameReader, encode


def test_frames_split_anywhere_come_out_whole_and_in_order():
    messages = [{"type": "ping", "id": n} for n in range(5)] + [{"type": "chat", "text": "x" * 300}]
    stream = b"".join(encode(m) for m in messages)
    for chunk in (1, 3, 7, len(stream)):
        reader = FrameReader(FROM_CLIENT)
        out = []
        for start in range(0, len(stream), chunk):
            reader.feed(stream[start : start + chunk])
            while (message := reader.next_message()) is not None:
                out.append(message)
        assert out == messages


def test_an_oversized_length_is_refused_before_its_body_arrives():
    reader = FrameReader(FROM_CLIENT)
    reader.feed(struct.pack(">I", limits.MAX_FRAME + 1))
    with pytest.raises(ProtocolError) as err:
        reader.next_message()
    assert err.value.code == "too_big" and err.value.fatal


def test_an_unreadable_body_is_refused_and_the_next_frame_still_reads():
    reader = FrameReader(FROM_CLIENT)
    reader.feed(struct.pack(">I", 2) + b"\xc1\xc1" + encode({"type": "ping"}))
    with pytest.raises(ProtocolError) as err:
        reader.next_message()
    assert err.value.code == "bad_frame" and not err.value.fatal
    assert reader.next_message() == {"type": "ping"}
    assert reader.next_message() is None
