"""Fair under flood (issue 20 point 6): the host serves connections in turns of a few
messages, so a player's ping is handled after a few messages of each flooder, not after
every flooder's whole burst. Over real TCP against an in-process host; the order is
checked, never a time."""

import pytest

from protocol import limits
from protocol.framing import encode
from server.connection import MESSAGES_PER_TURN
from tests.hostutil import Raw
from tests.netutil import running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(60)]

FLOODERS = 5
BURST = limits.RATE_BURST - 1  # the most a connection may send at once after its hello, unrefused


async def test_an_honest_ping_waits_for_a_turn_of_each_flooder_not_their_bursts(tmp_path):
    async with running_host(tmp_path) as host:
        flooders = [await Raw().open(host.port) for _ in range(FLOODERS)]
        for n, raw in enumerate(flooders):
            await raw.hello(f"Flood {n}")
        honest = await Raw().open(host.port)
        await honest.hello("Honest")
        honest_conn = next(c for c in host.connections if c.player.name == "Honest")

        handled = []  # who each message the host handled came from, in order
        handle = host.gate.handle

        def recording(conn, message):
            handled.append(conn is honest_conn)
            handle(conn, message)

        host.gate.handle = recording
        burst = b"".join(encode({"type": "ping", "id": n}) for n in range(BURST))
        # All written before the host's loop turns again (it shares this loop): every burst
        # and the honest ping are waiting together when it reads.
        for raw in flooders:
            raw.writer.write(burst)
        honest.send({"type": "ping", "id": 1})
        pong = await honest.recv_type("pong")
        assert pong["re"] == 1
        await wait_until(lambda: len(handled) == FLOODERS * BURST + 1)
        before_honest = handled.index(True)
        assert before_honest <= FLOODERS * MESSAGES_PER_TURN, before_honest
        # Nobody lost anything for it: every flooder got all its answers, in order.
        for raw in flooders:
            res = [(await raw.recv_type("pong"))["re"] for _ in range(BURST)]
            assert res == list(range(BURST))
            raw.close()
        honest.close()


async def test_a_wrong_digest_is_answered_with_the_game_as_it_is_now(tmp_path):
    async with running_host(tmp_path) as host:
        raw = await Raw().open(host.port)
        await raw.hello("Ana")
        raw.send({"type": "create_table", "ruleset": "dice", "id": 1})
        await raw.recv_type("ok")
        raw.send({"type": "start", "id": 2})
        await raw.recv_type("ok")
        wrong = {"type": "digest", "seq": 0, "digest": "0" * 64}
        for expected_events in (0, 1, 1):  # the same bytes while nothing changed, then new
            raw.send({**wrong, "id": 10 + expected_events})
            desync = await raw.recv_type("desync")
            game = await raw.recv_type("game")
            assert desync["re"] == 10 + expected_events and len(game["events"]) == expected_events
            if expected_events == 0:
                raw.send({"type": "act", "action": {"type": "roll", "hold": []}, "id": 3})
                assert (await raw.recv_type("event"))["re"] == 3
        raw.close()
