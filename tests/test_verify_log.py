"""`kismet-replay --verify` on logs a real host wrote over real TCP: an honest race game and
dice game verify, signed by the host's key; each kind of tampering in a copy fails in its own
words, naming what and where (issue 20, point 5)."""

import asyncio
import re

import pytest

from kismet_tui.cli import replay_main
from kismet_tui.rules import apply_event, game_from_header
from protocol.gamelog import record_bytes
from server.identity import HostIdentity
from tests.verifyutil import a_grab_pair, end_of, events_of, forge, play, records, run_verify, write

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def race_log(tmp_path_factory):
    return asyncio.run(play(tmp_path_factory.mktemp("race-host"), "race", ["greedy", "greedy"]))


@pytest.fixture(scope="module")
def dice_log(tmp_path_factory):
    return asyncio.run(play(tmp_path_factory.mktemp("dice-host"), "dice", ["greedy"]))


@pytest.fixture(scope="module")
def solo_dice_log(tmp_path_factory):
    """Alone, every move stays legal whatever the dice: the log a forger redraws."""
    return asyncio.run(play(tmp_path_factory.mktemp("solo-host"), "dice", []))


def changed_span(line: str) -> tuple[int, int]:
    """The events the signature's words say the first change is in."""
    found = re.search(r"the first change is in (?:the header or )?events (\d+) to (\d+)", line)
    assert found is not None, line
    return int(found.group(1)), int(found.group(2))


def test_an_honest_race_game_verifies_signed_by_the_hosts_key(race_log, capsys):
    path, fingerprint = race_log
    code, lines = run_verify(path, capsys)
    count = len(events_of(records(path)))
    assert code == 0, lines
    assert lines[0].startswith(
        f"Signed by the host you played at ({fingerprint}), known here as 127.0.0.1:"
    ), lines
    assert (
        lines[1]
        == f"Every event ({count}) is legal at its stamp, in order, from the seat that may make it."
    )
    assert lines[2] == "Every die and card came from the seed committed at the start."
    assert lines[3].startswith("The end record matches the replay: scores [")
    # Naming the host's key makes no difference to an honest log.
    assert run_verify(path, capsys, "--host-key", fingerprint)[0] == 0


def test_an_honest_dice_game_verifies_too(dice_log, capsys):
    path, fingerprint = dice_log
    code, lines = run_verify(path, capsys, "--host-key", fingerprint)
    assert code == 0 and lines[0].startswith(f"Signed by the host you played at ({fingerprint})")
    assert len(lines) == 4, lines


def verify_changed(signed_log, tmp_path, capsys, change):
    """`change(records)` edits a copy of a signed log and returns the seq of the event it
    changed; the copy must fail --verify, its signature naming where. Returns the records
    and the lines --verify said."""
    path, fingerprint = signed_log
    recs = records(path)
    seq = change(recs)
    code, lines = run_verify(write(tmp_path / "changed.kismet", recs), capsys)
    assert code == 1, lines
    assert lines[0].startswith(
        f"The signature does not match: the log was changed after host {fingerprint} signed it"
    ), lines
    low, high = changed_span(lines[0])
    assert low <= seq <= high, (seq, lines[0])
    return recs, lines


def test_swapped_grabs_fail_the_signature_naming_where(race_log, tmp_path, capsys):
    def swap(recs):
        # The same stamps, the two players' grabs the other way round.
        first, second = a_grab_pair(recs)
        first["seat"], second["seat"] = second["seat"], first["seat"]
        first["action"], second["action"] = second["action"], first["action"]
        return first["seq"]

    verify_changed(race_log, tmp_path, capsys, swap)


def test_a_grab_given_to_another_seat_fails_naming_the_event(race_log, tmp_path, capsys):
    def give(recs):
        first, second = a_grab_pair(recs)
        second["seat"] = first["seat"]  # the first grabber takes the second card as well
        return second["seq"]

    recs, lines = verify_changed(race_log, tmp_path, capsys, give)
    first, second = a_grab_pair(records(race_log[0]))
    # The engine refuses it: a grab is final.
    seat_name = recs[0]["header"]["seats"][first["seat"]]
    assert lines[1].startswith(
        f"Event {second['seq']}: seat {first['seat']} ({seat_name})'s grab at "
        f"place {second['action']['card']} is not legal at "
    ), lines
    assert lines[1].endswith("You already grabbed a card this round: a grab is final."), lines
    # The same change with the signature cut off fails for that, and on the event too.
    unsigned = [r for r in recs if r["kind"] != "signature"]
    code, lines = run_verify(write(tmp_path / "given-unsigned.kismet", unsigned), capsys)
    assert code == 1 and lines[0].startswith("Not signed, but its header says protocol version 3")
    assert lines[1].startswith(f"Event {second['seq']}: "), lines


def test_a_stamp_moved_one_ms_fails_naming_where(race_log, tmp_path, capsys):
    def later(recs):
        grab, _ = a_grab_pair(recs)
        grab["t"] += 1
        return grab["seq"]

    verify_changed(race_log, tmp_path, capsys, later)


def test_a_timeout_stamped_before_its_deadline_is_named(race_log, tmp_path, capsys):
    moved = {}

    def early(recs):
        game = game_from_header(recs[0]["header"])
        for record in events_of(recs):
            deadline = game.next_deadline()
            if (
                record["action"]["type"] == "timeout"
                and deadline is not None
                and deadline - 1 >= game.now
            ):
                record["t"] = deadline - 1
                moved.update(record)
                return record["seq"]
            apply_event(game, {k: record[k] for k in record if k != "kind"})
        raise AssertionError("no timeout to move")

    recs, lines = verify_changed(race_log, tmp_path, capsys, early)
    at = moved["t"] - recs[0]["header"]["t0"]
    assert lines[1] == (
        f"Event {moved['seq']}: the host's timeout is not legal at {at:,} ms "
        f"into the game: Too early: the deadline has not passed yet."
    ), lines


def test_an_edited_end_result_fails_saying_what_the_events_give(race_log, tmp_path, capsys):
    path, fingerprint = race_log
    recs = records(path)
    end = end_of(recs)
    honest = dict(end["result"])
    loser = next(s for s in range(len(honest["scores"])) if s not in honest["winners"])
    end["result"]["winners"] = [loser]
    code, lines = run_verify(write(tmp_path / "result.kismet", recs), capsys)
    assert code == 1
    assert (
        lines[0].endswith("the first change is in the end record.")
        or "or the end record" in lines[0]
    )
    assert lines[-1] == (
        f"The end record's result is not what the events give: in winners it "
        f"says [{loser}], the events give {honest['winners']!r}."
    ), lines


def test_a_forged_log_shows_another_key_and_fails_against_the_hosts(
    solo_dice_log, tmp_path, capsys
):
    path, fingerprint = solo_dice_log
    recs = records(path)
    forger = HostIdentity.load(tmp_path / "forger")
    forged = forge(recs, forger, tmp_path / "forged.kismet")
    assert records(forged)[0]["header"]["chance"] != recs[0]["header"]["chance"] or any(
        a.get("chance") != b.get("chance")
        for a, b in zip(events_of(records(forged)), events_of(recs))
    )
    # Every value fits its new commit, so only the key tells: it is not the host's, nor
    # any this player met (tests/test_verify_genuine.py has more).
    code, lines = run_verify(forged, capsys)
    assert code == 1 and lines[0].startswith(
        f"Signed by a key you have never seen ({forger.fingerprint})"
    )
    code, lines = run_verify(forged, capsys, "--host-key", fingerprint)
    assert code == 1
    assert lines[0] == (
        f"Signed by host {forger.fingerprint}, not by {fingerprint} as you asked: "
        f"this log is not that host's."
    )
    # Without a signature at all it cannot pass for the host's either.
    unsigned = write(
        tmp_path / "forged-unsigned.kismet",
        [r for r in records(forged) if r["kind"] != "signature"],
    )
    code, lines = run_verify(unsigned, capsys, "--host-key", fingerprint)
    assert code == 1 and f"You asked for host {fingerprint}, but nobody signed this log." in lines


def test_an_integer_chance_gets_words_not_a_traceback(dice_log, tmp_path, capsys):
    path, _ = dice_log
    recs = records(path)
    event = next(r for r in events_of(recs) if r.get("chance"))
    event["chance"] = 7
    code, lines = run_verify(write(tmp_path / "int-chance.kismet", recs), capsys)
    assert code == 1
    assert lines[1].startswith(f"Event {event['seq']}: ")
    assert lines[1].endswith(": its chance is 7, not a list of values."), lines
    recs = records(path)
    recs[0]["header"]["chance"] = 7
    code, lines = run_verify(write(tmp_path / "int-header-chance.kismet", recs), capsys)
    assert code == 1 and lines[1] == "The game's start: its chance is 7, not a list of values.", (
        lines
    )


def test_a_record_after_the_signature_fails(race_log, tmp_path, capsys):
    path, fingerprint = race_log
    recs = records(path)
    extra = dict(events_of(recs)[-1], seq=len(events_of(recs)) + 1)
    code, lines = run_verify(write(tmp_path / "appended.kismet", recs + [extra]), capsys)
    assert code == 1
    assert lines[0] == (
        f"Signed by host {fingerprint}, but 1 record follows the signature: "
        f"added after the host signed."
    )


def test_an_unfinished_game_cannot_be_checked_yet(race_log, tmp_path, capsys):
    path, _ = race_log
    recs = records(path)
    header_and_some = [r for r in recs if r["kind"] in ("header", "event")][:6]
    code, lines = run_verify(write(tmp_path / "unfinished.kismet", header_and_some), capsys)
    assert code == 2
    assert lines[0] == "Not signed: the game never ended."
    assert (
        lines[1]
        == "Every event (5) is legal at its stamp, in order, from the seat that may make it."
    )


def test_a_truncated_log_says_truncated_and_exits_2_as_the_help_says(race_log, tmp_path, capsys):
    """A file cut in the middle of a record is "truncated" (not "never ended"); it cannot be
    checked whole: exit 2, which --help names, as README does."""
    import contextlib
    import io

    path, _ = race_log
    data = path.read_bytes()
    recs = records(path)
    head = b"".join(record_bytes(r) for r in recs[:6])  # the header and five events
    cut = tmp_path / "cut.kismet"
    cut.write_bytes(head + data[len(head) : len(head) + 7])  # 7 bytes into the sixth event
    code, lines = run_verify(cut, capsys)
    assert code == 2, lines
    assert lines[0] == (
        "Truncated: the file stops 7 bytes into a record after event 5; what "
        "followed (the rest of the game, its end and signature) is missing, so "
        "it cannot be checked whole."
    ), lines
    assert "never ended" not in " ".join(lines)
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
        replay_main(["--help"])
    words = " ".join(shown.getvalue().split())
    assert "(exit 0)" in words and "(exit 1)" in words and "exit 2" in words, words


def test_a_log_from_an_older_host_is_judged_on_the_rest(solo_dice_log, tmp_path, capsys):
    """Before signing (protocol version 2) a host wrote no signature, no key, no digest and
    no marks: such a log is judged on the rest, and cannot say who wrote it (exit 2)."""
    from tests.logutil import older_log

    path, _ = solo_dice_log
    older = older_log(records(path), tmp_path / "older.kismet")
    code, lines = run_verify(older, capsys)
    assert code == 2, lines
    assert lines[0] == (
        "Not signed (older host, before protocol version 3): nothing shows who "
        "wrote it; judged on the rest."
    )
    assert lines[-1].startswith("The end record matches the replay: ")
