"""The host re-encodes, never relays: actions are rebuilt from their game's vocabulary, and
whatever shape a client's map has (binary keys, floats, deep nesting, huge values) it gets an
answer in words, never `internal`. Over real TCP with an in-process host."""

import asyncio

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from protocol import ProtocolError, limits, parse_client, read_log
from protocol.actions import VOCABULARY, build_action
from tests.hostutil import Raw, _client, game_on_other_table
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def test_extra_fields_are_refused_in_words_and_nothing_is_relayed(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await game_on_other_table(host)
        mover = ana if ana.game.current == ana.seat else bo
        other = bo if mover is ana else ana
        raw_before = len(other.events)
        from kismet_tui.net.client import RequestError

        with pytest.raises(RequestError) as refused:
            await mover.act({"type": "roll", "hold": [], "note": "\x1b[2J\x1b]0;pwned\x07"})
        assert refused.value.words == "A roll has no field 'note'."
        # A bad shape is not a rules refusal: its own code on the wire (docs/protocol.md).
        assert (refused.value.code, refused.value.kind) == ("bad_action", "malformed")
        with pytest.raises(RequestError) as refused:
            await mover.act({"type": "roll", "hold": [], "pad": ["x" * 200] * 200})
        assert "has no field 'pad'" in refused.value.words
        # A nil hold means an empty one: the host stores the action it built, not the map.
        await mover.act({"type": "roll", "hold": None})
        await wait_until(lambda: len(other.events) == raw_before + 1)
        assert other.events[-1]["action"] == {"type": "roll"}
        header, events = read_log(next((tmp_path / "games").glob("*.kismet")))
        assert events[-1]["action"] == {"type": "roll"}
        assert b"pwned" not in next((tmp_path / "games").glob("*.kismet")).read_bytes()
        await ana.close()
        await bo.close()


async def test_binary_keys_floats_deep_and_long_values_get_bad_message_in_words(tmp_path):
    async with running_host(tmp_path) as host:
        raw = await Raw().open(host.port)
        # A 10,000-character name is refused in the name's own words.
        raw.writer.write(
            _frame(
                {"type": "hello", "version": limits.PROTOCOL_VERSION, "name": "N" * 10000, "id": 1}
            )
        )
        error = await raw.recv_type("error")
        assert error["code"] == "bad_message"
        assert (
            error["words"] == f"A name is at most {limits.MAX_NAME} characters; that one has 10000."
        )
        await raw.hello()
        cases = [
            (
                {"type": "create_table", "ruleset": "dice", "options": {b"away_limit_ms": 1}},
                "binary",
            ),
            (
                {"type": "create_table", "ruleset": "dice", "options": {"away_limit_ms": 1.5}},
                "fraction",
            ),
            ({"type": "create_table", "ruleset": "dice", "options": {"a": b"\x00"}}, "binary data"),
            (
                {
                    "type": "create_table",
                    "ruleset": "dice",
                    "options": {"a": [[[[[[[[[[1]]]]]]]]]]},
                },
                "nested",
            ),
            ({"type": "create_table", "ruleset": "dice", "options": {"a": "x" * 5000}}, "longer"),
            ({"type": "create_table", "ruleset": "dice", "options": {"a": 2**63}}, "too large"),
            ({"type": "chat", "text": "x" * 5000}, "A chat line is at most"),
        ]
        for number, (message, words) in enumerate(cases, start=10):
            raw.writer.write(_frame({**message, "id": number}))
            error = await raw.recv_type("error")
            assert error["code"] == "bad_message", (message, error)
            assert error.get("re") == number and words in error["words"], (message, error)
        raw.writer.write(_frame({"type": "ping", "id": 99}))
        assert (await raw.recv_type("pong"))["re"] == 99
        raw.close()


def _frame(message) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return len(body).to_bytes(4, "big") + body


def test_every_vocabulary_field_rebuilds_to_itself():
    """The vocabulary lets through every action the engines' own legal_actions produce."""
    seen = 0
    for ruleset in VOCABULARY:
        for action in _legal_actions_of_a_game(ruleset):
            assert build_action(ruleset, action) == {
                k: v for k, v in action.items() if v is not None
            }
            seen += 1
    assert seen > 30


def _legal_actions_of_a_game(ruleset):
    from kismet_tui.rules import new_game

    game = new_game(ruleset, 2, b"0123456789abcdef", {})
    t = 1
    for _ in range(400):
        if game.finished:
            break
        for seat in (0, 1):
            yield from game.legal_actions(seat)
        moved = False
        for seat in (0, 1, -1):
            actions = game.legal_actions(seat)
            if actions:
                t = max(t, game.next_deadline() or t) if seat == -1 else t + 1
                try:
                    game.apply(seat, actions[0], t)
                    moved = True
                    break
                except Exception:
                    continue
        if not moved:
            break


# ---- arbitrary maps ---------------------------------------------------------------------------

KEYS = st.one_of(
    st.sampled_from(
        [
            "type",
            "id",
            "name",
            "version",
            "token",
            "ruleset",
            "options",
            "bots",
            "table",
            "spectator",
            "ready",
            "order",
            "action",
            "text",
            "seq",
            "digest",
            "hold",
            "box",
            "card",
        ]
    ),
    st.text(max_size=8),
    st.binary(max_size=4),
)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=40),
    st.binary(max_size=8),
    st.sampled_from(
        [
            "dice",
            "race",
            "knock",
            "roll",
            "score",
            "hello",
            "act",
            "create_table",
            "chat",
            "start",
            "ready",
            "grab",
        ]
    ),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
ACTIONS = st.one_of(
    VALUES,
    st.builds(
        lambda kind, rest: {**rest, "type": kind},
        st.sampled_from(
            sorted({k for game in VOCABULARY.values() for k in game} | {"timeout", "away"})
        ),
        st.dictionaries(KEYS, VALUES, max_size=3),
    ),
)


def _shaped(kind):
    """A message of one known type whose fields are each anything at all (or absent)."""
    from protocol.requests import REQUESTS

    fields = {field: (ACTIONS if field == "action" else VALUES) for field in REQUESTS[kind]}
    return st.builds(
        lambda known, extra: {**extra, **known, "type": kind},
        st.fixed_dictionaries({}, optional=fields),
        st.dictionaries(KEYS, VALUES, max_size=2),
    )


def _messages():
    from protocol.requests import REQUESTS

    odd = st.builds(
        lambda kind, rest: {**rest, "type": kind}, VALUES, st.dictionaries(KEYS, VALUES, max_size=4)
    )
    return st.one_of(odd, *[_shaped(kind) for kind in sorted(REQUESTS) if kind != "hello"])


MESSAGES = _messages()


def _plain(value) -> bool:
    """Only what the host stores and relays: text keys, no floats, no bytes."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, str))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(MESSAGES)
def test_the_parser_answers_every_map_in_words(message):
    try:
        parsed = parse_client(message)
    except ProtocolError as exc:
        assert exc.code == "bad_message" and exc.words.strip()
        return
    assert _plain(parsed), parsed


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(MESSAGES, min_size=1, max_size=25))
@example([{"type": "create_table", "ruleset": "dice", "options": {b"away_limit_ms": 1}}])
def test_the_host_answers_every_map_in_words_or_closes_cleanly(tmp_path_factory, messages):
    asyncio.run(_throw_at_host(tmp_path_factory.mktemp("fuzz"), messages))


async def _throw_at_host(state_dir, messages):
    async with running_host(state_dir) as host:
        ana = await _client(host, "Ana")
        await ana.create_table("dice")
        # Each map goes to two connections: one in the lobby (create, join, chat refused...),
        # one playing its own solo game (its acts reach the vocabulary and the engine).
        lobby = await Raw().open(host.port)
        await lobby.hello("Lobby")
        seated = await Raw().open(host.port)
        await seated.hello("Fuzz")
        seated.send({"type": "create_table", "ruleset": "dice", "id": 0})
        assert (await _reply_to(seated, 0))["type"] == "ok"
        seated.send({"type": "start", "id": 0})
        assert (await _reply_to(seated, 0))["type"] == "ok"
        open_ones = [lobby, seated]
        for number, message in enumerate(messages, start=1):
            message = {**message, "id": number}
            try:
                body = msgpack.packb(message, use_bin_type=True)
            except (OverflowError, ValueError, TypeError):
                continue  # not msgpack at all: nothing to send
            for raw in list(open_ones):
                raw.writer.write(len(body).to_bytes(4, "big") + body)
                try:
                    reply = await _reply_to(raw, number)
                except (asyncio.IncompleteReadError, ConnectionError):
                    open_ones.remove(raw)  # a clean close (version, too big) is an answer too
                    continue
                if reply["type"] == "error":
                    assert reply["code"] != "internal", (message, reply)
                    assert reply["words"].strip()
        # The host is still there for everyone else.
        assert (await ana.list_tables()) is not None
        await ana.close()
        lobby.close()
        seated.close()


async def _reply_to(raw, number):
    while True:
        message = await raw.recv(10)
        if message.get("re") == number:
            return message
        if message["type"] == "error" and message.get("re") is None:
            return message  # unreadable frames carry no id to answer to
