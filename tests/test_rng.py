"""The RNG against the test vectors of docs/protocol.md, and its basic guarantees."""

import hashlib
import hmac
from collections import Counter

import pytest

from kismet_tui.rules.rng import (
    DOMAIN,
    ChanceError,
    RevealedRNG,
    ScriptedRNG,
    SeededRNG,
    chance_seed,
    commitment,
    header_chance_version,
    seed_bytes,
)

SEED = bytes.fromhex("00112233445566778899aabbccddeeff")


def test_block_zero_is_sha256_of_domain_seed_and_counter():
    assert hashlib.sha256(DOMAIN + SEED + bytes(8)).hexdigest() == (
        "01b6a92e60cf4e461bd15df9f04797573ba6f92b80c18749bdae708512a947fd"
    )
    rng = SeededRNG(SEED)
    first = rng.u32()
    assert first == int("01b6a92e", 16) == 28748078


def test_vector_u32():
    rng = SeededRNG(SEED)
    assert [rng.u32() for _ in range(4)] == [28748078, 1624198726, 466705913, 4031223639]


def test_vector_dice():
    rng = SeededRNG(SEED)
    assert [rng.die() for _ in range(20)] == [
        3,
        5,
        6,
        4,
        2,
        2,
        6,
        2,
        1,
        6,
        2,
        6,
        6,
        6,
        5,
        4,
        4,
        1,
        6,
        6,
    ]


def test_vector_shuffle():
    rng = SeededRNG(b"kismet")
    cards = list(range(2, 13))
    rng.shuffle(cards)
    assert cards == [4, 5, 7, 9, 3, 8, 12, 10, 2, 11, 6]
    assert rng.bytes_used == 40


def test_vector_rejection_sampling():
    rng = SeededRNG(b"kismet")
    assert [rng.below(3_000_000_000) for _ in range(5)] == [
        2479826804,
        2725082145,
        266140728,
        2963302584,
        1166273992,
    ]
    # Five draws of 4 bytes would be 20: the extra 4 bytes are the rejected draw.
    assert rng.bytes_used == 24


def test_vector_int_seed():
    assert seed_bytes(7) == bytes.fromhex("0000000000000007")
    rng = SeededRNG(7)
    assert [rng.die() for _ in range(10)] == [2, 2, 3, 1, 2, 6, 3, 3, 1, 1]


def test_draws_cross_block_boundaries_without_skipping():
    # 9 draws of 4 bytes cross the 32-byte block edge; the bytes must be the concatenation.
    rng = SeededRNG(SEED)
    stream = b"".join(
        hashlib.sha256(DOMAIN + SEED + i.to_bytes(8, "big")).digest() for i in range(2)
    )
    expected = [int.from_bytes(stream[k : k + 4], "big") for k in range(0, 36, 4)]
    assert [rng.u32() for _ in range(9)] == expected


def test_dice_are_roughly_uniform():
    rng = SeededRNG(b"uniform")
    counts = Counter(rng.die() for _ in range(60_000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    for face in range(1, 7):
        assert 9_500 < counts[face] < 10_500


def test_below_rejects_bad_bounds():
    rng = SeededRNG(SEED)
    with pytest.raises(ValueError):
        rng.below(0)
    with pytest.raises(ValueError):
        rng.below((1 << 32) + 1)
    assert rng.below(1) == 0


@pytest.mark.parametrize("bad", [b"", b"x" * 65, -1, 1 << 64, 1.5, True])
def test_bad_seeds_are_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        seed_bytes(bad)


def test_scripted_rng_gives_scripted_dice_then_the_stream():
    rng = ScriptedRNG([6, 6, 1], seed=SEED)
    assert [rng.die() for _ in range(3)] == [6, 6, 1]
    # After the script: the seeded stream, from its start.
    assert rng.die() == 3
    rng.push(2)
    assert rng.die() == 2
    with pytest.raises(ValueError):
        ScriptedRNG([7])


def test_state_tracks_position():
    a, b = SeededRNG(SEED), SeededRNG(SEED)
    a.die()
    assert a.state() != b.state()
    b.die()
    assert a.state() == b.state()


# ---- protocol versions 2 and 3: the host's recorded stream, a client's revealed values ------


def test_vector_chance_seed_and_commit_version_2():
    """Version 2's derivation stays as it was, so games saved under it still verify."""
    server_seed = bytes(range(32))
    entropy = [bytes([0xAA]) * 16, None, bytes([0x01]) * 16]
    assert commitment(server_seed, 2) == hashlib.sha256(server_seed).hexdigest()
    expected = hashlib.sha256(server_seed + bytes([0xAA]) * 16 + bytes([0x01]) * 16).digest()
    assert chance_seed(server_seed, entropy, 2) == expected
    # The flaw version 3 removes: with no entropy the chance seed is the public commit.
    assert chance_seed(server_seed, [None, None], 2).hex() == commitment(server_seed, 2)


def test_vector_chance_seed_and_commit_version_3():
    server_seed = bytes(range(32))
    entropy = [bytes([0xAA]) * 16, None, bytes([0x01]) * 16]
    assert commitment(server_seed) == hashlib.sha256(b"kismet-commit-v3" + server_seed).hexdigest()
    message = (
        b"kismet-chance-v3" + b"\x01" + bytes([0xAA]) * 16 + b"\x00" + b"\x01" + bytes([0x01]) * 16
    )
    expected = hmac.new(server_seed, message, hashlib.sha256).digest()
    assert chance_seed(server_seed, entropy) == expected == chance_seed(server_seed, entropy, 3)
    # Keyed by the secret: with no entropy the seed is still no hash of anything public.
    none = chance_seed(server_seed, [None, None])
    assert none == hmac.new(server_seed, b"kismet-chance-v3\x00\x00", hashlib.sha256).digest()
    assert none.hex() != commitment(server_seed)
    assert none != hashlib.sha256(bytes.fromhex(commitment(server_seed))).digest()
    # Which seat gave none matters: the marker bytes keep the seats apart.
    a, b = bytes([0x0A]) * 16, bytes([0x0B]) * 16
    assert chance_seed(server_seed, [a, None, b]) != chance_seed(server_seed, [a, b, None])


def test_the_header_says_which_derivation_it_was_written_with():
    assert header_chance_version({"seed": b"x"}) == 1
    assert header_chance_version({"commit": "ab"}) == 2
    assert header_chance_version({"commit": "ab", "version": 3}) == 3
    assert header_chance_version({"commit": "ab", "version": 9}) is None
    assert header_chance_version({"commit": "ab", "version": True}) is None
    with pytest.raises(ValueError):
        commitment(bytes(32), 9)


def test_the_stream_records_each_value_as_it_returns_it():
    rng = SeededRNG(SEED)
    assert [rng.die() for _ in range(3)] == [3, 5, 6]
    assert rng.below(33) == rng.drawn[-1]
    first = rng.take_drawn()
    assert first[:3] == [3, 5, 6] and len(first) == 4
    assert rng.take_drawn() == []
    assert rng.state() == {"drawn": 4}


def test_rewind_returns_the_stream_to_a_mark_exactly():
    rng = SeededRNG(SEED)
    rng.die()
    mark = rng.mark()
    ahead = [rng.below(1000) for _ in range(20)]  # crosses block edges
    rng.rewind(mark)
    assert rng.state() == {"drawn": 1}
    assert [rng.below(1000) for _ in range(20)] == ahead


def test_revealed_values_are_returned_in_order_and_counted_like_the_stream():
    stream = SeededRNG(SEED)
    values = [stream.die(), stream.die(), stream.below(11)]
    revealed = RevealedRNG()
    revealed.feed(values)
    assert [revealed.die(), revealed.die(), revealed.below(11)] == values
    revealed.done()
    assert revealed.state() == stream.state()


@pytest.mark.parametrize(
    "values,draw,kind",
    [
        ([], "die", "missing"),
        ([7], "die", "range"),
        ([0], "die", "range"),
        ([True], "die", "range"),
        ([11], "below", "range"),
        ([-1], "below", "range"),
    ],
)
def test_revealed_values_that_do_not_fit_are_refused_in_words(values, draw, kind):
    rng = RevealedRNG()
    rng.feed(values)
    with pytest.raises(ChanceError) as err:
        rng.die() if draw == "die" else rng.below(11)
    assert err.value.mismatch == kind and "host" in err.value.words


def test_a_value_left_over_after_the_event_is_refused():
    rng = RevealedRNG()
    rng.feed([3, 4])
    rng.die()
    with pytest.raises(ChanceError) as err:
        rng.done()
    assert err.value.mismatch == "extra" and "1 more chance value" in err.value.words
