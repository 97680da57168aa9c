"""Crafted game logs against `kismet-replay FILE`, `kismet-replay --verify FILE` and the
recent-games list: one plain line for a file they cannot use (exit 2 from playback, 1 from
--verify: not verified), never a traceback, and nothing from a file (escapes, bidi, carriage
returns, newlines) reaches the terminal."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kismet_tui.cli import replay_main
from kismet_tui.recent import describe
from kismet_tui.rules import new_game
from kismet_tui.saved_game import UnreadableGame, playable
from protocol.gamelog import record_bytes
from tests.logutil import play_solo_dice
from tests.verifyutil import records, write

pytestmark = pytest.mark.timeout(120)

HEADER_V1 = {
    "ruleset": "dice",
    "seats": ["Ana"],
    "seed": b"0123456789abcdef",
    "options": {},
    "t0": 0,
}


def v1_records(header=HEADER_V1):
    """A legal (protocol version 1) solo dice log: two events."""
    game = new_game("dice", 1, header["seed"])
    recs = [{"kind": "header", "header": header, "table": 1}]
    for seq, action in enumerate(
        [{"type": "roll", "hold": []}, {"type": "score", "box": "aces"}], 1
    ):
        game.apply(0, action, seq * 10)
        recs.append({"kind": "event", "seq": seq, "t": seq * 10, "seat": 0, "action": action})
    return recs


def header_with(**fields):
    return [{"kind": "header", "header": {**HEADER_V1, **fields}, "table": 1}] + v1_records()[1:]


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def logged(recs) -> bytes:
    return b"".join(record_bytes(r) for r in recs)


GOOD = logged(v1_records())
pack = msgpack.packb
# A header whose options nest 3000 lists deep (deeper than msgpack itself would write).
NESTED = frame(
    b"\x83"
    + pack("kind")
    + pack("header")
    + pack("table")
    + pack(1)
    + pack("header")
    + b"\x83"
    + pack("ruleset")
    + pack("dice")
    + pack("seats")
    + pack(["Ana"])
    + pack("options")
    + b"\x81"
    + pack("x")
    + b"\x91" * 3000
    + b"\x90"
)

# name -> (file contents, words the line must hold)
CRAFTED = {
    "empty": (b"", "is empty: it holds no game."),
    "text": (b"Hello, this is a letter to my aunt.\n", "is not a Kismet game log"),
    "msgpack garbage": (frame(b"\xc1\xc1\xc1\xff"), "is not a Kismet game log, or is damaged"),
    "not a map": (frame(msgpack.packb([1, 2, 3])), "is not a Kismet game log, or is damaged"),
    "no header first": (logged(v1_records()[1:]), "does not start with a game header"),
    "truncated header": (GOOD[:9], "does not start with a game header"),
    "garbage after the header": (logged(v1_records()[:1]) + frame(b"\xc1"), "unreadable record"),
    "header is a list": (logged([{"kind": "header", "header": [1], "table": 1}]), "game header"),
    "seats a number": (logged(header_with(seats=5)), "names no game and no players"),
    "ruleset a number": (logged(header_with(ruleset=7)), "names no game and no players"),
    "unknown game": (logged(header_with(ruleset="chess")), "does not play back"),
    "options text": (logged(header_with(options="fast")), "does not play back"),
    "t0 text": (logged(header_with(t0="soon")), "does not play back"),
    "t0 negative": (logged(header_with(t0=-5)), "does not play back"),
    "seed a map": (logged(header_with(seed={"a": 1})), "does not play back"),
    "200000 seats": (logged(header_with(seats=["a"] * 200000)), "does not play back"),
    "huge event time": (
        logged(v1_records()[:1] + [{**v1_records()[1], "t": 2**64 - 1}]),
        "event 1 has no time the host could have stamped",
    ),
    "event time text": (
        logged(v1_records()[:1] + [{**v1_records()[1], "t": "noon"}]),
        "event 1 has no time the host could have stamped",
    ),
    "action a number": (
        logged(v1_records()[:1] + [{**v1_records()[1], "action": 5}]),
        "does not play back",
    ),
    "seat text": (
        logged(v1_records()[:1] + [{**v1_records()[1], "seat": "x"}]),
        "does not play back",
    ),
    "event without seq": (
        logged(v1_records()[:1] + [{"kind": "event", "t": 1, "seat": 0}]),
        "out of order",
    ),
    "event without action": (
        logged(v1_records()[:1] + [{"kind": "event", "seq": 1, "t": 1, "seat": 0}]),
        "an event has no 'action'",
    ),
    "unknown record": (logged(v1_records() + [{"kind": "\x1b[2Jbanana"}]), "unknown record kind"),
    "deep nesting": (NESTED, "Kismet"),
    "a record too big": (struct.pack(">I", 2**31) + b"x", "larger than any the host writes"),
}


def run(capsys, *argv):
    code = replay_main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_one_clean_line(text: str) -> None:
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    assert_clean_lines(text)


def assert_clean_lines(text: str, path=None) -> None:
    """Whole lines (each naming `path` first, when given), with nothing a terminal acts on."""
    assert text.endswith("\n") and "Traceback" not in text, repr(text)
    assert not any(ch in text for ch in "\x1b\x9b\r\x07\u202e\u2066"), repr(text)
    if path is not None:
        assert all(line.startswith(f"{path}: ") for line in text.splitlines()), text


@pytest.mark.parametrize("name", list(CRAFTED))
def test_a_crafted_file_gets_one_plain_line_and_exit_2_from_both_commands(tmp_path, capsys, name):
    contents, words = CRAFTED[name]
    path = tmp_path / "game.kismet"
    path.write_bytes(contents)
    for argv in ([str(path)], ["--verify", str(path)]):
        if argv[0] == "--verify" and words == "does not play back":
            continue  # a well-formed log the engine cannot play: --verify's own verdict, below
        code, out, err = run(capsys, *argv)
        assert (code, out) == (1 if argv[0] == "--verify" else 2, ""), (argv, err)
        assert_one_clean_line(err)
        assert err.startswith("kismet-replay: ") and words in err, err


@pytest.mark.parametrize(
    "name", [n for n, (_, words) in CRAFTED.items() if words == "does not play back"]
)
def test_verify_of_a_log_the_engine_cannot_play_says_so_in_one_line(tmp_path, capsys, name):
    path = tmp_path / "game.kismet"
    path.write_bytes(CRAFTED[name][0])
    code, out, err = run(capsys, "--verify", str(path))
    assert code == 1 and out == ""
    assert_clean_lines(err, path)


def test_an_empty_file_and_a_file_that_is_no_game_get_different_words(tmp_path, capsys):
    (tmp_path / "empty.kismet").write_bytes(b"")
    (tmp_path / "letter.kismet").write_bytes(b"Dear aunt,\n")
    _, _, empty = run(capsys, str(tmp_path / "empty.kismet"))
    _, _, letter = run(capsys, str(tmp_path / "letter.kismet"))
    assert empty == f"kismet-replay: {tmp_path / 'empty.kismet'} is empty: it holds no game.\n"
    assert letter.startswith(
        f"kismet-replay: {tmp_path / 'letter.kismet'} is not a Kismet game log"
    )


def test_a_missing_file_or_a_folder_is_said_in_words(tmp_path, capsys):
    for argv, exit_code in (([], 2), (["--verify"], 1)):
        code, out, err = run(capsys, *argv, str(tmp_path / "nowhere.kismet"))
        assert (code, out, err) == (
            exit_code,
            "",
            f"kismet-replay: No such file: {tmp_path / 'nowhere.kismet'}\n",
        )
        code, out, err = run(capsys, *argv, str(tmp_path))
        assert (code, out, err) == (
            exit_code,
            "",
            f"kismet-replay: {tmp_path} is a folder, not a game log.\n",
        )


HOSTILE = "\x1b]0;owned\x07Ana\x1b[2J\x1b[31m\u202e\r\u2714 Verified\nok"


async def test_a_hostile_name_in_a_failed_verify_stays_inside_the_line_that_says_it_failed(
    tmp_path, capsys
):
    _, path = await play_solo_dice(tmp_path / "host")
    recs = records(path)
    recs[0]["header"]["seats"] = [HOSTILE]
    recs = [r for r in recs if r["kind"] != "signature"]  # judged on the events, then
    event = next(r for r in recs if r["kind"] == "event" and len(r.get("chance", [])) == 5)
    event["chance"][0] = event["chance"][0] % 6 + 1
    bad = tmp_path / "bad.kismet"
    write(bad, recs)
    code, out, err = run(capsys, "--verify", str(bad))
    assert code == 1 and out == ""
    assert_clean_lines(err, bad)
    [failure] = [line for line in err.splitlines() if f"Event {event['seq']}" in line]
    assert "Ana \u2714 Verified ok" in failure, err  # the name, inside its sentence


def test_names_from_a_file_are_cleaned_for_playback_and_the_recent_list(tmp_path):
    path = tmp_path / "\x1b[2Jgame.kismet"
    write(path, header_with(seats=[HOSTILE]))
    header, _ = playable(path)
    [name] = header["seats"]
    assert name == "Ana \u2714 Verified ok"
    line = describe(path)
    assert_one_clean_line(line + "\n")
    assert line.endswith("  dice   Ana \u2714 Verified ok  (unfinished, 2 moves)"), line
    # A file that cannot be read is named cleaned, with the reason.
    path.write_bytes(b"\x1b]0;x\x07")
    line = describe(path)
    assert_one_clean_line(line + "\n")
    assert line.startswith("game.kismet  (unreadable: ") and "is not a Kismet game log" in line, (
        line
    )


def test_the_legal_log_the_crafted_ones_start_from_plays_back(tmp_path):
    path = tmp_path / "good.kismet"
    path.write_bytes(GOOD)
    header, events = playable(path)
    assert header["seats"] == ["Ana"] and len(events) == 2


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cut=st.integers(0, len(GOOD)),
    flips=st.lists(st.tuples(st.integers(0, len(GOOD) - 1), st.integers(0, 255)), max_size=4),
)
def test_any_damage_to_a_log_is_played_or_refused_in_words(tmp_path, capsys, cut, flips):
    data = bytearray(GOOD[:cut])
    for position, value in flips:
        if position < len(data):
            data[position] = value
    path = tmp_path / "fuzzed.kismet"
    path.write_bytes(bytes(data))
    try:
        playable(path)
    except UnreadableGame as exc:
        assert exc.words and "\n" not in exc.words
    code, out, err = run(capsys, "--verify", str(path))
    assert code in (1, 2)  # a version-1 log: nothing to check against, at best
    assert_clean_lines(out + err)


@pytest.mark.parametrize("speed", ["50", "3", "0"])
def test_a_speed_the_replay_does_not_have_is_refused_in_words(tmp_path, capsys, speed):
    with pytest.raises(SystemExit) as ended:
        replay_main(["--speed", speed, str(tmp_path / "any.kismet")])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert f"--speed {speed} is not a speed the replay has: 0.25, 0.5, 1, 2, 4, 8, 16." in err, err
