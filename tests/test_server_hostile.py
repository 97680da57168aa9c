"""A hostile or broken client gets a clear answer or is cut off, and another table on the same
host plays on undisturbed."""

import asyncio
import struct

import pytest

from protocol import encode, limits
from tests.hostutil import Raw, _client, game_on_other_table, play_a_turn
from tests.netutil import connected, running_host, wait_until

pytestmark = [pytest.mark.network, pytest.mark.timeout(120)]


async def test_garbage_bytes_are_cut_off(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await game_on_other_table(host)
        raw = await Raw().open(host.port)
        raw.writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # a length of ~1.2 GB
        error = await raw.recv()
        assert error["type"] == "error" and error["code"] == "too_big"
        assert await raw.closed_by_host()
        await play_a_turn(ana, bo)
        await ana.close()
        await bo.close()


async def test_oversized_length_is_refused_and_the_connection_closed(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await game_on_other_table(host)
        raw = await Raw().open(host.port)
        await raw.hello()
        raw.writer.write(struct.pack(">I", limits.MAX_FRAME + 1) + b"\x00" * 100)
        error = await raw.recv_type("error")
        assert error["code"] == "too_big" and str(limits.MAX_FRAME) in error["words"]
        assert await raw.closed_by_host()
        # A player with nothing to come back to is forgotten: dropped connections do not pile up.
        await wait_until(lambda: len(host.players) == 2)
        await play_a_turn(ana, bo)
        await ana.close()
        await bo.close()


async def test_unreadable_body_wrong_types_and_unknown_type_get_answers(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await game_on_other_table(host)
        raw = await Raw().open(host.port)
        await raw.hello()
        body = b"\xc1\xc1\xc1"
        raw.writer.write(struct.pack(">I", len(body)) + body)
        assert (await raw.recv_type("error"))["code"] == "bad_frame"
        raw.send({"type": "join_table", "table": "one", "id": 5})
        error = await raw.recv_type("error")
        assert error == {
            "type": "error",
            "code": "bad_message",
            "kind": "malformed",
            "re": 5,
            "words": "'table' must be a whole number.",
        }
        raw.send({"type": "teleport", "id": 6})
        error = await raw.recv_type("error")
        assert error["re"] == 6 and "teleport" in error["words"]
        # The connection still works after all that.
        raw.send({"type": "ping", "id": 7})
        pong = await raw.recv_type("pong")
        assert pong["re"] == 7 and isinstance(pong["now"], int)
        await play_a_turn(ana, bo)
        raw.close()
        await ana.close()
        await bo.close()


async def test_messages_before_hello_and_a_wrong_version_are_refused(tmp_path):
    async with running_host(tmp_path) as host:
        raw = await Raw().open(host.port)
        raw.send({"type": "list_tables", "id": 1})
        assert (await raw.recv())["code"] == "hello_first"
        raw.send({"type": "hello", "version": 999, "name": "Old"})
        error = await raw.recv()
        assert error["code"] == "version"
        assert await raw.closed_by_host()


async def test_acting_for_another_seat_or_as_a_spectator_is_refused(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await game_on_other_table(host)
        waiting = bo if ana.game.current == ana.seat else ana
        from kismet_tui.net import ActionRefused, RequestError

        with pytest.raises(ActionRefused) as err:
            await waiting.act({"type": "roll", "hold": []})
        assert err.value.code == "illegal" and "turn" in err.value.words.lower()
        assert err.value.kind == "not_yours"  # the engine's kind, carried by the wire
        watcher = await _client(host, "Eve")
        await watcher.join_table(ana.table["id"], spectator=True)
        with pytest.raises(RequestError) as err:
            await watcher.act({"type": "roll", "hold": []})
        assert err.value.code == "not_seated"
        # No seat field in an action can steer it: the host acts for the sender's own seat.
        with pytest.raises(ActionRefused):
            await waiting.act({"type": "roll", "hold": [], "seat": 1 - waiting.seat})
        assert len(host.tables[ana.table["id"]].events) == 0
        await play_a_turn(ana, bo)
        for client in (ana, bo, watcher):
            await client.close()


async def test_a_flood_gets_an_error_then_a_disconnect(tmp_path):
    async with running_host(tmp_path) as host:
        ana, bo = await game_on_other_table(host)
        raw = await Raw().open(host.port)
        await raw.hello()
        frame = encode({"type": "ping"})
        raw.writer.write(frame * (limits.RATE_BURST + limits.FLOOD_STRIKES + 50))
        codes = []
        try:
            while True:
                message = await raw.recv()
                if message["type"] == "error":
                    codes.append(message["code"])
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        assert codes and set(codes) == {"slow_down"}
        assert raw.reader.at_eof()
        await play_a_turn(ana, bo)
        await ana.close()
        await bo.close()


async def test_names_and_chat_reach_others_as_typed_without_controls(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "[red]Ana\x1b[2J") as ana, connected(host, "Bo") as bo:
            table = await ana.create_table("dice")
            await bo.join_table(table["id"])
            assert bo.table["seats"][0]["name"] == "[red]Ana"  # the whole escape went
            messages = bo.messages()
            await ana.chat("hello [bold]world[/bold]\x07\nbye")
            while True:
                message = await asyncio.wait_for(messages.__anext__(), 5)
                if message["type"] == "chat":
                    break
            assert message["text"] == "hello [bold]world[/bold] bye"
            assert message["name"] == "[red]Ana"


async def test_player_facing_refusals_use_plain_words(tmp_path):
    async with running_host(tmp_path) as host:
        async with connected(host, "Ana") as ana, connected(host, "Bo") as bo:
            from kismet_tui.net import RequestError

            table = await ana.create_table("dice")
            await bo.join_table(table["id"])
            with pytest.raises(RequestError) as err:
                await bo.start()
            assert err.value.words == "Only the table's owner can start the game."
            with pytest.raises(RequestError) as err:
                await ana.start()
            assert err.value.code == "not_ready" and "Bo" in err.value.words
            with pytest.raises(RequestError) as err:
                await bo.join_table(999)
            assert (err.value.code, err.value.words) == ("no_table", "There is no table 999.")
            with pytest.raises(RequestError) as err:
                await ana.create_table("dice")
            assert err.value.code == "already_at_table"
            await bo.leave()
            with pytest.raises(RequestError) as err:
                await bo.create_table("poker")
            assert err.value.code == "bad_message" and "ruleset" in err.value.words
