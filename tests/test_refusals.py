"""One refusal family (kismet_tui/rules/refusal.py): the engine's, the wire's, the client's and
the replay's refusals are all a Refusal with words, a code and a kind; every wire code has its
kind, and docs/protocol.md lists each code with it."""

import re
from pathlib import Path

import pytest

from kismet_tui.net.client import ActionRefused, ConnectionLost, RequestError
from kismet_tui.replay import NothingToSend
from kismet_tui.rules import ChanceError, IllegalAction, Refusal, new_game
from kismet_tui.rules.refusal import KINDS as REFUSAL_KINDS
from kismet_tui.rules.refusal import words_of
from protocol.errors import ERRORS, KINDS, ProtocolError, kind_of

PROTOCOL_DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def test_every_wire_code_has_a_kind_and_the_protocol_page_lists_it():
    assert set(KINDS) == set(ERRORS) and set(KINDS.values()) <= set(REFUSAL_KINDS)
    listed = dict(re.findall(r"^\| `(\w+)` \[([\w' ]+)\] \|", PROTOCOL_DOC.read_text(), re.M))
    assert set(listed) == set(ERRORS)
    for code, kind in KINDS.items():
        assert listed[code] == ("the engine's kind" if code == "illegal" else kind), code


@pytest.mark.parametrize(
    "refusal, code, kind",
    [
        (IllegalAction("The game is over."), "illegal", "illegal_now"),
        (IllegalAction("There is no box called 'x'.", "malformed"), "bad_action", "malformed"),
        (ChanceError("range", "The host sent 7 as a die."), "bad_action", "malformed"),
        (ProtocolError("slow_down"), "slow_down", "limit"),
        (ProtocolError("illegal", "Wait.", kind="not_yet"), "illegal", "not_yet"),
        (RequestError("not_owner", "Only the owner."), "not_owner", "not_yours"),
        (ActionRefused("illegal", "Not your turn.", "not_yours"), "illegal", "not_yours"),
        (ConnectionLost(), "connection", "unavailable"),
        (NothingToSend("This is a replay."), "replay", "unavailable"),
    ],
)
def test_each_refusal_is_one_of_the_family(refusal, code, kind):
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.kind) == (code, kind)
    assert refusal.words and words_of(refusal) == refusal.words == str(refusal)


def test_a_client_reads_the_engines_kind_only_where_the_engine_gives_one():
    assert kind_of("illegal", "not_yet") == "not_yet"
    assert kind_of("illegal", "not_yours") == "not_yours"
    assert kind_of("illegal", "limit") == "illegal_now"  # not a kind the engine sends
    assert kind_of("illegal") == "illegal_now"  # an older host sends no kind
    assert kind_of("too_quick", "illegal_now") == "not_yet"  # a code's own kind stands
    assert kind_of("a_newer_hosts_code") == "unavailable"


def test_the_engine_says_whose_turn_and_what_shape():
    game = new_game("dice", 2, 7)
    waiting = 1 - game.current
    with pytest.raises(IllegalAction) as refused:
        game.apply(waiting, {"type": "roll", "hold": []}, 0)
    assert (refused.value.code, refused.value.kind) == ("illegal", "not_yours")
    with pytest.raises(IllegalAction) as refused:
        game.apply(game.current, {"type": "score", "box": "nonsense"}, 0)
    assert (refused.value.code, refused.value.kind) == ("bad_action", "malformed")


def test_words_of_anything_else_is_its_message_or_its_name():
    assert words_of(OSError("Connection refused")) == "Connection refused"
    assert words_of(KeyError()) == "KeyError"
